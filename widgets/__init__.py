"""Qt panels and the viewport widget. May import rendering/ and model/, never app/."""
