from django.urls import reverse


def entry_url(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1e", study_id="STUDY1", session_id="SESSION1"):
    url = reverse("annotation:entry", kwargs={"key": pool.entry_key})
    return f"{url}?PROLIFIC_PID={pid}&STUDY_ID={study_id}&SESSION_ID={session_id}"


def enter(client, pool, **params):
    return client.get(entry_url(pool, **params))
