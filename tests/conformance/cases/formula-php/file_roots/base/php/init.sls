{% set state = 'php' %}
{% include "php/installed.jinja" %}
