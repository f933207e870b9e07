{% set state = 'curl' %}
{% include "php/installed.jinja" %}
