"""/api/v1/ — the JSON API (issue 9 fills this in)."""

urlpatterns = []
