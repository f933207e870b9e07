{% set state = 'cache-lite' %}
{% include "php/installed.jinja" %}
