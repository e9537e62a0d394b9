"""The ASGI entry point: the `streams` process of `make run` (uvicorn) serves the live streams
(`streams.views`) from it; the API's other views run under WSGI (`project.wsgi`)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

application = get_asgi_application()
