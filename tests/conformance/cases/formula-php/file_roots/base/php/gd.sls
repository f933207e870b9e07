{% set state = 'gd' %}
{% include "php/installed.jinja" %}
