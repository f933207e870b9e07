{% set state = 'console-table' %}
{% include "php/installed.jinja" %}
