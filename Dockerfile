# Tessera web, worker and beat image (docker-compose.yml runs all three from it).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TESSERA_VAR_DIR=/app/var

WORKDIR /app

RUN useradd --create-home --uid 1000 tessera

# Requirements first so that a code change does not reinstall them. psycopg2-binary, Pillow,
# numpy and scipy ship wheels, so no compiler is needed.
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .

# Static files are collected into the image (var/static, served by WhiteNoise). The key exists
# only for this command: at run time settings refuse to start without a real SECRET_KEY.
# var/media is where uploads and exports go; docker-compose.yml mounts a volume there.
RUN SECRET_KEY=collectstatic-only DEBUG=0 python manage.py collectstatic --noinput \
    && mkdir -p /app/var/media \
    && chown -R tessera:tessera /app/var

USER tessera
EXPOSE 8000

# gunicorn reads WEB_CONCURRENCY for its number of worker processes.
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--access-logfile", "-"]
