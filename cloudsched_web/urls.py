from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from cloudsched_web.runs import study_views as studies
from cloudsched_web.runs import views as runs
from cloudsched_web.scenarios import views as scenarios
from cloudsched_web.traces import views as traces

urlpatterns = [
    path("", scenarios.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenarios/new/", scenarios.create, name="scenario_new"),
    path("scenarios/<int:pk>/", scenarios.detail, name="scenario"),
    path("scenarios/<int:pk>/edit/", scenarios.edit, name="scenario_edit"),
    path("scenarios/<int:pk>/run/", scenarios.run, name="scenario_run"),
    path("scenarios/<int:pk>/delete/", scenarios.delete, name="scenario_delete"),
    path("scenarios/<int:pk>/clone/", scenarios.clone, name="scenario_clone"),
    path("scenarios/<int:pk>/sweep/", scenarios.sweep, name="scenario_sweep"),
    path("presets/", scenarios.presets, name="presets"),
    path("presets/<str:family>/<str:name>/", scenarios.preset_run, name="preset_run"),
    path("runs/<int:pk>/", runs.detail, name="run"),
    path("runs/<int:pk>/status.json", runs.status, name="run_status"),
    path("runs/<int:pk>/result.json", runs.result_json, name="run_result"),
    path("runs/<int:pk>/cancel/", runs.cancel, name="run_cancel"),
    path("runs/<int:pk>/delete/", runs.delete, name="run_delete"),
    path("runs/<int:pk>/share/", runs.share, name="run_share"),
    path("runs/<int:pk>/data.json", runs.data, name="run_data"),
    path("runs/<int:pk>/diff/", runs.diff, name="run_diff"),
    path("runs/<int:pk>/export/<str:kind>/", runs.export, name="run_export"),
    path("runs/<int:pk>/jobs-<str:chart>.<str:fmt>", runs.run_dist_figure, name="run_dist_figure"),
    path("share/<uuid:token>/", runs.shared, name="run_shared"),
    path("share/<uuid:token>/data.json", runs.shared_data, name="run_shared_data"),
    path("share/<uuid:token>/diff/", runs.shared_diff, name="run_shared_diff"),
    path("share/<uuid:token>/export/<str:kind>/", runs.shared_export, name="run_shared_export"),
    path("share/<uuid:token>/clone/", runs.shared_clone, name="run_shared_clone"),
    path("share/<uuid:token>/jobs-<str:chart>.<str:fmt>", runs.shared_run_dist_figure, name="run_shared_dist_figure"),
    path("share/<uuid:token>/trace/", traces.shared_download, name="run_shared_trace"),
    path("traces/", traces.trace_list, name="traces"),
    path("traces/<int:pk>/download/", traces.download, name="trace_download"),
    path("studies/", studies.studies, name="studies"),
    path("studies/<int:pk>/", studies.study, name="study"),
    path("studies/<int:pk>/status.json", studies.study_status, name="study_status"),
    path("studies/<int:pk>/points.csv", studies.study_export, name="study_export"),
    path("studies/<int:pk>/figure.<str:fmt>", studies.study_figure, name="study_figure"),
    path("studies/<int:pk>/jobs.json", studies.study_jobs, name="study_jobs"),
    path("studies/<int:pk>/jobs-<str:chart>.<str:fmt>", studies.study_dist_figure, name="study_dist_figure"),
    path("studies/<int:pk>/share/", studies.study_share, name="study_share"),
    path("studies/<int:pk>/delete/", studies.study_delete, name="study_delete"),
    path("trash/", runs.trash_list, name="trash"),
    path("trash/<str:kind>/<int:pk>/restore/", runs.trash_restore, name="trash_restore"),
    path("share/study/<uuid:token>/", studies.shared_study, name="study_shared"),
    path("share/study/<uuid:token>/clone/", studies.shared_study_clone, name="study_shared_clone"),
    path("share/study/<uuid:token>/jobs.json", studies.shared_study_jobs, name="study_shared_jobs"),
    path("share/study/<uuid:token>/status.json", studies.shared_study_status, name="study_shared_status"),
    path("share/study/<uuid:token>/figure.<str:fmt>", studies.shared_study_figure, name="study_shared_figure"),
    path(
        "share/study/<uuid:token>/jobs-<str:chart>.<str:fmt>",
        studies.shared_study_dist_figure,
        name="study_shared_dist_figure",
    ),
    path("api/v1/", include("cloudsched_web.api.urls")),
    path("account/tokens/", include("cloudsched_web.api.account_urls")),
    path("admin/", admin.site.urls),
]

# JSON errors under /api/ (Django's own pages everywhere else)
handler400 = "cloudsched_web.api.errors.handler400"
handler404 = "cloudsched_web.api.errors.handler404"
handler500 = "cloudsched_web.api.errors.handler500"
