import pytest

from cloudsched_web.api.models import ApiToken, token_digest

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def test_it_needs_a_login(client):
    assert client.get("/account/tokens/").status_code == 302


def test_a_new_token_is_shown_once_and_only_its_hash_is_kept(alice_client, alice):
    response = alice_client.post("/account/tokens/", {"name": "notebook"})
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    row = ApiToken.objects.get(user=alice)
    start = page.index('id="token-value">') + len('id="token-value">')
    plaintext = page[start : page.index("<", start)]
    assert token_digest(plaintext) == row.digest
    assert plaintext not in alice_client.get("/account/tokens/").content.decode()
    assert row.prefix in alice_client.get("/account/tokens/").content.decode()


def test_a_token_needs_a_name(alice_client):
    response = alice_client.post("/account/tokens/", {"name": " "})
    assert response.status_code == 400 and "name:" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_revoking_makes_the_api_answer_401(alice_client, alice):
    row, plaintext = ApiToken.issue(alice, "x")
    auth = {"Authorization": f"Bearer {plaintext}"}
    assert alice_client.get("/api/v1/families", headers=auth).status_code == 200
    alice_client.post(f"/account/tokens/{row.pk}/revoke/")
    alice_client.logout()
    assert alice_client.get("/api/v1/families", headers=auth).status_code == 401


def test_nobody_revokes_another_users_token(client, alice, bob):
    row, _ = ApiToken.issue(alice, "x")
    client.force_login(bob)
    assert client.post(f"/account/tokens/{row.pk}/revoke/").status_code == 404
    assert ApiToken.objects.get(pk=row.pk).is_active


def test_an_admin_can_revoke_tokens_but_never_sees_a_digest(admin_client, alice):
    row, _ = ApiToken.issue(alice, "x")
    page = admin_client.get(f"/admin/api/apitoken/{row.pk}/change/").content.decode()
    assert row.digest not in page
    admin_client.post("/admin/api/apitoken/", {"action": "revoke", "_selected_action": [row.pk]})
    assert not ApiToken.objects.get(pk=row.pk).is_active
