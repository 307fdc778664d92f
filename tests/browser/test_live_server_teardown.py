"""The live server's requests in flight are waited for before a test's database is flushed: a page
that ends its test while its own request still runs (a draft saved as the test ends) must not meet
the flush ("database table is locked" on a loaded machine)."""

import threading
import time
import urllib.request

import pytest
from django.http import HttpResponse
from django.urls import path

from annotation.models import Annotator
from tests import factories as f

from .conftest import live_requests_counted, live_requests_drain

started = threading.Event()


def slow_write(request):
    """A request that is still writing when the test body ends: it waits, then writes a row."""
    started.set()
    time.sleep(1.5)
    pool = f.make_pool(f.make_study(f.make_researcher("late")), "IN", "India")
    Annotator.objects.create(study=pool.study, pool=pool, prolific_pid="LATEWRITER000000000001")
    return HttpResponse("written")


urlpatterns = [path("slow-write/", slow_write)]


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_the_end_of_a_test_waits_for_the_servers_requests(live_server):
    answers = []
    started.clear()
    def fetch():
        answers.append(urllib.request.urlopen(live_server.url + "/slow-write/").read())

    client = threading.Thread(target=fetch)
    client.start()
    assert started.wait(10)
    counted = live_requests_counted(live_server)
    assert counted.count == 1  # in flight as the test body would end
    live_requests_drain(live_server)  # what the autouse fixture does before the flush
    assert counted.count == 0 and Annotator.objects.filter(prolific_pid="LATEWRITER000000000001").exists()
    client.join(10)
    assert answers == [b"written"]
