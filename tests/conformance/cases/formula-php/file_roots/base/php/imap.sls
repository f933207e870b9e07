{% set state = 'imap' %}
{% include "php/installed.jinja" %}
