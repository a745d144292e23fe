from page_kit import header
header("x", "y")
