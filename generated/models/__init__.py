"""Model classes generated from the ``models:`` of ``specs/`` (classes several formats make);
never edit these by hand.

    >>> from generated.models.ticdc_types import ResolvedEvent
    >>> ResolvedEvent(7).op
    'resolved'
"""
