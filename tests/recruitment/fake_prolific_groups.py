"""The fake Prolific's participant groups and the eligibility filters that use them: a part of
``FakeProlific``.

Endpoints, after Prolific's reference [DOCS /api-reference/participant-groups/*; CLI
client/client.go, model/participant_group.go]:
- ``GET /participant-groups/?workspace_id=`` (or ``project_id``; one is required): the list envelope
  of ``{id, name, workspace_id, organisation_id, description, participant_count, is_deleted,
  feeder_studies}``.
- ``POST /participant-groups/`` ``{name, workspace_id | organisation_id, description?,
  participant_ids?}``: 201 with the group; 400 ``detail{field: [msg]}`` without a name or a scope.
- ``GET /participant-groups/{id}/``: the group; 404 if unknown or another workspace's.
- ``GET|POST|DELETE /participant-groups/{id}/participants/`` (``{participant_ids: [...]}``): 200
  with ``results[{participant_id, datetime_created}]`` (adding a member already in is ignored).

Filters (checked at create, enforced when a test participant starts a study):
``participant_group_allowlist`` (in one of the groups of the entry; separate entries ANDed),
``participant_group_blocklist`` (in none), ``previous_studies_allowlist``/``previous_studies_blocklist``
(took part in one of those studies / in none).
"""

from __future__ import annotations

from typing import Any

from .fake_prolific_rules import Answer, new_id

GROUP_FILTERS = {"participant_group_allowlist", "participant_group_blocklist"}
STUDY_FILTERS = {"previous_studies_allowlist", "previous_studies_blocklist"}
ROUND_FILTERS = GROUP_FILTERS | STUDY_FILTERS
ROUTES = [
    ("GET", r"participant-groups/", "r_groups"),
    ("POST", r"participant-groups/", "r_group_create"),
    ("GET", r"participant-groups/(?P<gid>[0-9a-f]{24})/", "r_group_get"),
    ("GET", r"participant-groups/(?P<gid>[0-9a-f]{24})/participants/", "r_group_members"),
    ("POST", r"participant-groups/(?P<gid>[0-9a-f]{24})/participants/", "r_group_add"),
    ("DELETE", r"participant-groups/(?P<gid>[0-9a-f]{24})/participants/", "r_group_remove"),
]


class ParticipantGroups:
    """Mixed into FakeProlific (its lock, workspaces, studies, submissions, ``_page``)."""

    lock: Any
    studies: dict[str, dict[str, Any]]
    submissions: dict[str, dict[str, Any]]
    groups: dict[str, dict[str, Any]]
    members: dict[str, dict[str, str]]  # group id -> participant id -> when added

    def groups_init(self) -> None:
        self.groups = {}
        self.members = {}
        self.routes.extend((m, p, getattr(self, name)) for m, p, name in ROUTES)  # type: ignore[attr-defined]

    def _shown_group(self, group: dict[str, Any]) -> dict[str, Any]:
        return {**group, "participant_count": len(self.members[group["id"]])}

    def _group(self, gid: str) -> dict[str, Any]:
        group = self.groups.get(gid)
        seen = {w["id"] for w in self.visible_workspaces()}  # type: ignore[attr-defined]
        if group is None or group["workspace_id"] not in seen:
            raise Answer(404, "Participant group not found.")
        return group

    @staticmethod
    def _ids(body: Any) -> list[str]:
        ids = body.get("participant_ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            raise Answer(400, {"participant_ids": ["A list of participant ids (strings) is required."]})
        return ids

    def r_groups(self, body, query):
        scope = query.get("workspace_id") or query.get("project_id")
        if not scope:
            raise Answer(400, {"workspace_id": ["A workspace_id or a project_id is required."]})
        seen = {w["id"] for w in self.visible_workspaces()}  # type: ignore[attr-defined]
        items = [self._shown_group(g) for g in self.groups.values()
                 if g["workspace_id"] == query.get("workspace_id") and g["workspace_id"] in seen]
        return 200, self._page("participant-groups/", items, query), {}  # type: ignore[attr-defined]

    def r_group_create(self, body, query):
        body = self._need_object(body)  # type: ignore[attr-defined]
        errors: dict[str, list[str]] = {}
        if not isinstance(body.get("name"), str) or not body["name"].strip():
            errors["name"] = ["This field is required."]
        wid = body.get("workspace_id")
        if not wid and not body.get("organisation_id"):
            errors["workspace_id"] = ["Either a workspace or organisation ID must be specified."]
        elif wid and wid not in {w["id"] for w in self.visible_workspaces()}:  # type: ignore[attr-defined]
            errors["workspace_id"] = ["Workspace not found."]
        if errors:
            raise Answer(400, errors)
        initial = self._ids(body) if "participant_ids" in body else []
        group = {"id": new_id(), "name": body["name"], "workspace_id": wid, "organisation_id": None,
                 "description": body.get("description") or "", "is_deleted": False, "feeder_studies": []}
        self.groups[group["id"]] = group
        self.members[group["id"]] = dict.fromkeys(initial, "2026-11-25T10:00:00Z")
        return 201, self._shown_group(group), {}

    def r_group_get(self, body, query, gid):
        return 200, self._shown_group(self._group(gid)), {}

    def _member_list(self, gid: str, query: dict[str, str]) -> dict[str, Any]:
        rows = [{"participant_id": pid, "datetime_created": when} for pid, when in self.members[gid].items()]
        return self._page(f"participant-groups/{gid}/participants/", rows, query)  # type: ignore[attr-defined]

    def r_group_members(self, body, query, gid):
        self._group(gid)
        return 200, self._member_list(gid, query), {}

    def _members_answer(self, gid: str) -> dict[str, Any]:
        return {"results": [{"participant_id": p, "datetime_created": w} for p, w in self.members[gid].items()]}

    def r_group_add(self, body, query, gid):
        self._group(gid)
        for pid in self._ids(body):
            self.members[gid].setdefault(pid, "2026-11-25T10:00:00Z")
        return 200, self._members_answer(gid), {}

    def r_group_remove(self, body, query, gid):
        self._group(gid)
        for pid in self._ids(body):
            self.members[gid].pop(pid, None)
        return 200, self._members_answer(gid), {}

    # --- the filters ---------------------------------------------------------------------------

    def round_filter_errors(self, filters: Any) -> list[str]:
        """Unknown group or study ids in the round filters (the rest is checked by ``rules``)."""
        out = []
        for entry in filters if isinstance(filters, list) else []:
            fid = entry.get("filter_id") if isinstance(entry, dict) else None
            if fid not in ROUND_FILTERS:
                continue
            values = entry.get("selected_values")
            if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                out.append(f"{fid}: selected_values must be a non-empty list of ids.")
                continue
            known = self.groups if fid in GROUP_FILTERS else self.studies
            if bad := [v for v in values if v not in known]:
                out.append(f"{fid}: unknown id(s) {bad}.")
        return out

    def eligibility_problem(self, study: dict[str, Any], participant: str) -> str | None:
        """Why ``participant`` may not take ``study`` under its round filters, or None."""
        for entry in study.get("filters") or []:
            fid, values = entry.get("filter_id"), entry.get("selected_values") or []
            if fid in GROUP_FILTERS:
                inside = any(participant in self.members.get(gid, {}) for gid in values)
                if fid == "participant_group_allowlist" and not inside:
                    return "not in the participant group(s) the study is restricted to"
                if fid == "participant_group_blocklist" and inside:
                    return "in a participant group the study excludes"
            elif fid in STUDY_FILTERS:
                took = any(s["participant"] == participant and s["study_id"] in values
                           for s in self.submissions.values())
                if fid == "previous_studies_allowlist" and not took:
                    return "did not take part in the studies required"
                if fid == "previous_studies_blocklist" and took:
                    return "took part in a study this study excludes"
        return None
