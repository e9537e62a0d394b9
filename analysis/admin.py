from django.contrib import admin

from analysis.models import Analysis


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin):
    list_display = ("game_id", "status", "created_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = ("moves",)
