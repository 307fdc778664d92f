"""(being written)"""

urlpatterns: list = []
