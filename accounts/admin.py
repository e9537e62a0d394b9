from django.contrib import admin

from accounts.models import Account


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ("user", "vacation_days_per_year", "vacation_since", "vacation_used_seconds")
    search_fields = ("user__username",)
