import Contextual

print("placeholder")
