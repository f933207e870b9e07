{% set state = 'http' %}
{% include "php/installed.jinja" %}
