"""Input checked as the pages check it: a write serializer checks the JSON types, then the page's
own form checks the rules with the page's own messages; every problem is a 400 naming its field."""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms.models import model_to_dict
from rest_framework import serializers
from rest_framework.exceptions import ValidationError


def typed(serializer_class: type[serializers.Serializer], data: Any, **refused: str) -> dict:
    """``data`` checked by ``serializer_class`` (types only): its values, or a 400. A key it does not
    know is refused ("Unknown field."), or with the message ``refused`` gives for it."""
    if not isinstance(data, dict):
        raise ValidationError({"non_field_errors": ["Send a JSON object."]})
    serializer = serializer_class(data=data)
    known = set(serializer.fields)
    unknown = {key: [refused.get(key, "Unknown field.")] for key in data if key not in known}
    if unknown:
        raise ValidationError(unknown)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def form_data(instance, form_class: type[forms.ModelForm], given: dict, base: dict | None = None) -> dict:
    """What the page's form would post: the instance's values (a new row's defaults), then ``base``,
    then what the request gave."""
    fields = form_class._meta.fields
    current = model_to_dict(instance, fields=fields)
    return {**{k: v for k, v in current.items() if v is not None}, **(base or {}), **given}


def form_cleaned(form: forms.BaseForm, extra: dict[str, list[str]] | None = None) -> dict:
    """The form's cleaned data, or a 400 with its errors (``__all__`` as ``non_field_errors``) and
    ``extra`` problems found alongside."""
    problems = dict(extra or {})
    if not form.is_valid():
        for field, errors in form.errors.items():
            problems.setdefault("non_field_errors" if field == "__all__" else field, []).extend(errors)
    if problems:
        raise ValidationError(problems)
    return form.cleaned_data
