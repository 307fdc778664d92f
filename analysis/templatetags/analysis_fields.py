"""What the analysis page says about a field, asked of its field type (a result names the type)."""

from django import template

from studies.protocol import FIELD_TYPES

register = template.Library()


@register.filter
def agreement_note(field_type: str) -> str:
    """What the agreement of a field of this type compares when it is not the whole answer (a
    pick_one: the candidate chosen); "" otherwise, and for a type no longer known."""
    kind = FIELD_TYPES.get(field_type)
    return kind.agreement_note if kind is not None else ""
