{% set state = 'dom' %}
{% include "php/installed.jinja" %}
