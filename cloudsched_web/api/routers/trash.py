"""The trash: what the caller deleted (restorable for TRASH_KEEP_DAYS days), and restoring it (docs/trash.md)."""

from datetime import datetime
from typing import Literal

from ninja import Field, Router, Schema

from cloudsched_web.api.common import owner
from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.schemas import DbId
from cloudsched_web.runs import trash

router = Router(tags=["trash"])
Kind = Literal["scenario", "study", "run"]


class TrashItem(Schema):
    kind: Kind
    id: int
    name: str
    trashed_at: datetime
    purge_on: datetime
    contents: str


class Restored(Schema):
    kind: Kind
    id: int
    restored: bool = Field(description="false: it was not in the trash (nothing to do)")


def _name(item):
    return item.obj.name if item.kind != "run" else f"run {item.obj.pk} of {item.obj.title}"


@router.get("", response=list[TrashItem], summary="What you deleted, newest first (each with what went with it)")
def list_trash(request):
    return [
        {"kind": i.kind, "id": i.obj.pk, "name": _name(i), "trashed_at": i.trashed_at, "purge_on": i.purge_on,
         "contents": i.contents}
        for i in trash.load(trash.items(owner(request)))  # every item
    ]  # fmt: skip


@router.post(
    "/{kind}/{item_id}/restore",
    response=Restored,
    summary="Restore one item with what was deleted with it (a live item: nothing to do)",
)
def restore(request, kind: Kind, item_id: DbId):
    obj = trash.get_for_user(owner(request), kind, item_id)
    if obj is None:
        raise ApiError(404, "not_found", f"no {kind} {item_id}")
    try:
        restored = trash.restore(obj)
    except trash.RestoreError as exc:
        raise ApiError(409, "parent_in_trash", str(exc)) from None
    return {"kind": kind, "id": obj.pk, "restored": restored}
