from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from cloudsched_web.runs import views as runs
from cloudsched_web.scenarios import views as scenarios

urlpatterns = [
    path("", scenarios.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenarios/new/", scenarios.create, name="scenario_new"),
    path("scenarios/<int:pk>/", scenarios.detail, name="scenario"),
    path("scenarios/<int:pk>/edit/", scenarios.edit, name="scenario_edit"),
    path("scenarios/<int:pk>/run/", scenarios.run, name="scenario_run"),
    path("scenarios/<int:pk>/delete/", scenarios.delete, name="scenario_delete"),
    path("runs/<int:pk>/", runs.detail, name="run"),
    path("runs/<int:pk>/status.json", runs.status, name="run_status"),
    path("runs/<int:pk>/result.json", runs.result_json, name="run_result"),
    path("runs/<int:pk>/cancel/", runs.cancel, name="run_cancel"),
    path("runs/<int:pk>/share/", runs.share, name="run_share"),
    path("share/<uuid:token>/", runs.shared, name="run_shared"),
    path("api/v1/", include("cloudsched_web.api.urls")),
    path("admin/", admin.site.urls),
]
