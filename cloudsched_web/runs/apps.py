from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "cloudsched_web.runs"
