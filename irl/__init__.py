"""MaxEnt inverse RL: learn each country's reward function from how it votes."""
