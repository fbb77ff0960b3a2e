from django.apps import AppConfig


class ScenariosConfig(AppConfig):
    name = "cloudsched_web.scenarios"
