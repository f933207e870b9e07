{% set state = 'mysqlnd' %}
{% include "php/installed.jinja" %}
