{% set state = 'pgsql' %}
{% include "php/installed.jinja" %}
