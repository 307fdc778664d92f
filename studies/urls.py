from django.urls import path

from . import views

app_name = "studies"
urlpatterns = [
    path("", views.study_list, name="study-list"),
    path("<int:pk>/items/", views.item_list, name="item-list"),
    path("<int:pk>/items/<int:item_pk>/image", views.item_image, name="item-image"),
]
