{% set state = 'gettext' %}
{% include "php/installed.jinja" %}
