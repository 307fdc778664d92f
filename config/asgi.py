import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()

# No broker (the embedded mode): this serving process runs beat's periodic work itself.
from config.embedded import scheduler_start  # noqa: E402 (Django is set up above)

scheduler_start()
