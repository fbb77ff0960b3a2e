"""/account/tokens/: the API-token profile page."""

from django.urls import path

from cloudsched_web.api import views

urlpatterns = [
    path("", views.tokens, name="api_tokens"),
    path("<int:pk>/revoke/", views.revoke, name="api_token_revoke"),
]
