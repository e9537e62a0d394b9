"""`GET /api/schema/`, made once per process: drf-spectacular builds the document from every
view's description on each request, about a second of CPU for this API, and the document changes
only with the code. The first request for each format renders it; later ones get the same bytes
with the same ETag (so a client's If-None-Match gets 304, through ConditionalGetMiddleware)."""

from __future__ import annotations

import threading

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.settings import api_settings

from project.etags import keyed_etag

_rendered: dict[tuple, tuple[bytes, str, str]] = {}
_lock = threading.Lock()


class CachedSchemaView(SpectacularAPIView):
    @extend_schema(exclude=True)  # as drf-spectacular's own view: the schema is not in itself
    def get(self, request, *args, **kwargs):
        key = self._cache_key(request)
        found = _rendered.get(key)
        if found is None:
            with _lock:  # one build per format, however many requests arrive meanwhile
                found = _rendered.get(key) or self._render(request, *args, **kwargs)
                _rendered[key] = found
        content, content_type, disposition = found
        return HttpResponse(content, content_type=content_type,
                            headers={"ETag": keyed_etag(content), "Content-Disposition": disposition})

    def _cache_key(self, request) -> tuple:
        """Only what changes the document: a language or version the server knows (others give
        the default document, so they share its entry and cannot grow the cache)."""
        lang = request.GET.get("lang")
        version = request.GET.get("version")
        return (
            request.accepted_renderer.format,
            request.accepted_media_type,
            lang if settings.USE_I18N and lang in dict(settings.LANGUAGES) else None,
            version if version in (api_settings.ALLOWED_VERSIONS or ()) else None,
        )

    def _render(self, request, *args, **kwargs) -> tuple[bytes, str, str]:
        response = super().get(request, *args, **kwargs)
        renderer, media_type = request.accepted_renderer, request.accepted_media_type
        content = renderer.render(response.data, media_type, {"request": request, "response": response, "view": self})
        charset = getattr(renderer, "charset", None)
        content_type = f"{media_type}; charset={charset}" if charset else media_type
        return content, content_type, response["Content-Disposition"]


def forget() -> None:
    """Tests: the next request builds the document anew."""
    with _lock:
        _rendered.clear()
