{% set state = 'soap' %}
{% include "php/installed.jinja" %}
