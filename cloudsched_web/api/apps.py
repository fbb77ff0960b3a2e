from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "cloudsched_web.api"
