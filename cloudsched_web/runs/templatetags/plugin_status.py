"""``{% plugins_left_out as left %}``: the installed plug-ins the server could not load, with why (the admin's
index shows them, so an operator sees a broken package without reading the logs)."""

from django import template

from schedulers import plugins

register = template.Library()


@register.simple_tag
def plugins_left_out():
    return plugins.broken()
