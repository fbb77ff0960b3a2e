"""Template filters that write a metric's number by its declared kind and unit (see results.formatting).

``{{ value|metric:spec }}`` the text, ``{{ value|metric_exact:spec }}`` its tooltip (the exact
stored number), ``{{ cell|metric_spread:spec }}`` the ``± …`` of a table cell, and
``{% format_rules %}`` the rule table for ``static/js/format.js``.
"""

from django import template
from django.utils.html import json_script

from cloudsched_web.results import formatting

register = template.Library()


@register.filter
def metric(value, spec):
    return formatting.value_text(value, spec)


@register.filter
def metric_exact(value, spec):
    return formatting.exact_text(value, spec)


@register.filter
def metric_spread(cell, spec):
    return formatting.spread_text(cell.get("value"), cell.get("spread"), spec)


@register.filter
def setting(value):
    """A swept setting's value without float noise (``157.2``, not ``157.20000000000002``)."""
    return formatting.setting_text(value)


@register.filter
def duration(seconds):
    """A number of seconds as a duration (``3.2 s``, ``12.5 min``)."""
    return formatting.value_text(seconds, {"kind": "duration", "unit": "s"})


@register.simple_tag
def format_rules():
    return json_script(formatting.RULES, "format-rules")
