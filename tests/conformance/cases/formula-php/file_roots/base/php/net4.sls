{% set state = 'net4' %}
{% include "php/installed.jinja" %}
