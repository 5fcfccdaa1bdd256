"""Pictures drawn from figures and the model: SVG charts, diagrams, tables, schedules, the calculator."""
