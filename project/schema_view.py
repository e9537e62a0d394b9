"""`GET /api/schema/`, made once per process: drf-spectacular builds the document from every
view's description on each request, about a second of CPU for this API, and the document changes
only with the code. The first request for each format renders it; later ones get the same bytes
with the same ETag (so a client's If-None-Match gets 304, through ConditionalGetMiddleware).

The cache is keyed on what changes the document and nothing a client may vary at will: the format
(YAML or JSON), and a language and version the server knows. The answer is rendered for, and
labelled with, the media type of the renderer the client's Accept chose, without the Accept's
parameters (`; x=1`, `; indent=8`), which would otherwise each make and keep a copy. So the cache
holds at most one copy per format, known language and known version (`MOST_KEPT` bounds it
still, should a key ever grow another part)."""

from __future__ import annotations

import threading

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.settings import api_settings

from project.etags import keyed_etag

MOST_KEPT = 16  # 2 formats × (2 languages + the default) × (a version or none) is 12
_rendered: dict[tuple, tuple[bytes, str]] = {}
_lock = threading.Lock()


class CachedSchemaView(SpectacularAPIView):
    @extend_schema(exclude=True)  # as drf-spectacular's own view: the schema is not in itself
    def get(self, request, *args, **kwargs):
        key = self._cache_key(request)
        found = _rendered.get(key)
        if found is None:
            with _lock:  # one build per format, however many requests arrive meanwhile
                found = _rendered.get(key) or self._render(request, *args, **kwargs)
                _keep(key, found)
        content, disposition = found
        return HttpResponse(content, content_type=_content_type(request.accepted_renderer),
                            headers={"ETag": keyed_etag(content), "Content-Disposition": disposition})

    def handle_exception(self, exc):
        """An error is JSON, as every error of the API: the schema's own renderers would write a
        refusal (an unknown `?format=`, say) in YAML."""
        response = super().handle_exception(exc)
        self.request.accepted_renderer, self.request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return response

    def _cache_key(self, request) -> tuple:
        """Only what changes the document: a language or version the server knows (others give
        the default document, so they share its entry and cannot grow the cache)."""
        lang = request.GET.get("lang")
        version = request.GET.get("version")
        return (
            request.accepted_renderer.format,
            lang if settings.USE_I18N and lang in dict(settings.LANGUAGES) else None,
            version if version in (api_settings.ALLOWED_VERSIONS or ()) else None,
        )

    def _render(self, request, *args, **kwargs) -> tuple[bytes, str]:
        response = super().get(request, *args, **kwargs)
        renderer = request.accepted_renderer
        # the renderer's own media type: the client's parameters (JSON's `indent`) change nothing
        context = {"request": request, "response": response, "view": self}
        content = renderer.render(response.data, renderer.media_type, context)
        return content, response["Content-Disposition"]


def _content_type(renderer) -> str:
    charset = getattr(renderer, "charset", None)
    return f"{renderer.media_type}; charset={charset}" if charset else renderer.media_type


def _keep(key: tuple, rendered: tuple[bytes, str]) -> None:
    """Under `_lock`: keep the rendering, forgetting the oldest past `MOST_KEPT`."""
    _rendered[key] = rendered
    while len(_rendered) > MOST_KEPT:
        del _rendered[next(iter(_rendered))]


def forget() -> None:
    """Tests: the next request builds the document anew."""
    with _lock:
        _rendered.clear()
