"""Create the staff account of the embedded run, so its admin can be opened at once."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

EMAIL = "admin@localhost"


class Command(BaseCommand):
    help = "Create a local staff account (embedded DEBUG runs only)."

    def add_arguments(self, parser):
        parser.add_argument("--password", default="admin")

    def handle(self, *args, password, **options):
        if not settings.DEBUG:
            raise CommandError("embedded_admin only runs with DEBUG on; use createsuperuser.")
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username="admin", defaults={"email": EMAIL, "is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(password)
            user.save()
            from allauth.account.models import EmailAddress

            EmailAddress.objects.get_or_create(
                user=user, email=EMAIL, defaults={"verified": True, "primary": True}
            )
        self.stdout.write(
            f"Embedded admin: sign in at /admin/ as 'admin' ({EMAIL}), password '{password}'."
        )
