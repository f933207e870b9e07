{% set state = 'apcu' %}
{% include "php/installed.jinja" %}
