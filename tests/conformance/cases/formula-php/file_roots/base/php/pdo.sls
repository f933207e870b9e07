{% set state = 'pdo' %}
{% include "php/installed.jinja" %}
