{% set state = 'dba' %}
{% include "php/installed.jinja" %}
