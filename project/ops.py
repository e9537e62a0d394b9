"""What load balancers and operators ask a node, beside the API.

- `GET /api/health/` (games.apis) stays the cheap liveness answer.
- `GET /api/ready/`: readiness, 200 when this process can serve, 503 naming what it cannot reach:
  the database, the broker, and in a stream server (ASGI) its Redis subscription, without which
  its streams would only poll. A load balancer takes the node out while it is 503. It counts
  against its caller's address and says so (RateLimit headers) but is answered over the limit
  too: a 429 would take a healthy node out (`project.throttles.never_refused`).
- `GET /metrics`: Prometheus metrics (project.metrics), only with
  `Authorization: Bearer <SCRAPYARD_METRICS_TOKEN>`; without the setting the route answers 404,
  and the reverse proxy in front never routes it (deploy/nginx.conf).
"""

from __future__ import annotations

import asyncio
import hmac
import os
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import selectors
from project import metrics, throttles

# How long readiness waits for a stream server's subscription when it is (re)connecting.
SUBSCRIPTION_WAIT_SECONDS = 1.0


def _checks() -> dict[str, str]:
    close_old_connections()  # a connection that died with the database is not reused
    return selectors.health_checks()


async def _subscription() -> str:
    from streams.hub import HUB

    if not settings.REDIS_URL:
        return "ok"  # the embedded default: streams re-read the log every second instead
    HUB.listen()
    deadline = time.monotonic() + SUBSCRIPTION_WAIT_SECONDS
    while not HUB.subscribed and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return "ok" if HUB.subscribed else "error: not subscribed"


@throttles.never_refused  # counted and told, but a 429 would take a healthy node out
@require_GET
async def ready(request):
    # The shared pool, not a thread of this request's own: its threads keep their connections,
    # and checks that pile up wait for one rather than each opening another.
    checks = await sync_to_async(_checks, thread_sensitive=False)()
    if _in_stream_server(request):
        checks["subscription"] = await _subscription()
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503)


def _in_stream_server(request) -> bool:
    from django.core.handlers.asgi import ASGIRequest

    return isinstance(request, ASGIRequest)


@require_GET
def metrics_view(request):
    token = settings.SCRAPYARD_METRICS_TOKEN
    if not token:
        return JsonResponse({"code": "not_found", "detail": _("no such resource")}, status=404)
    offered = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(offered.encode(), token.encode()):
        return JsonResponse({"code": "not_authenticated", "detail": _("the metrics need their token")},
                            status=401, headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

    _forget_dead_processes()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    registry.register(_QueueCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def _forget_dead_processes() -> None:
    """A live gauge's files of a process that died without saying so (SIGKILL) would count for
    ever; the files are this node's own, so a pid that is gone is a process that is gone."""
    from prometheus_client import multiprocess

    for path in metrics.multiprocess_dir().glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            multiprocess.mark_process_dead(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _QueueCollector:
    """Queue depths and the oldest waiting message per queue, read from the broker now."""

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily

        depth = GaugeMetricFamily("scrapyard_queue_depth", "Messages waiting in each Celery queue", labels=["queue"])
        oldest = GaugeMetricFamily("scrapyard_queue_oldest_seconds",
                                   "How long the oldest message waiting in each queue has waited", labels=["queue"])
        if settings.REDIS_URL:
            try:
                figures = metrics.queue_figures(settings.REDIS_URL)
            except Exception:  # Redis away: no figures, and readiness says why
                figures = {}
            for queue, (waiting, waited) in figures.items():
                depth.add_metric([queue], waiting)
                oldest.add_metric([queue], waited)
        yield depth
        yield oldest
