"""python manage.py prolific SUBCOMMAND STUDY …: a study's pools on Prolific.

  launch STUDY --reward MINOR --minutes N [--pool CODE] [--publish] [--filter TITLE[=A|B]]… [--device D]…
  status STUDY [--pool CODE]                     read each pool's study back from Prolific
  places STUDY [--pool CODE]                     places in step with open slots; full pools paused
  publish|pause|resume|stop STUDY [--pool CODE]  move the studies on Prolific
  sync STUDY [--pool CODE]                       submissions recorded, leases of returned ones given back,
                                                 status and places in step (as the beat task does)
  webhooks STUDY [--rotate]                      the workspace's signing secret and status subscriptions
  invite-back STUDY --name NAME [--min-quality X] [--min-gold Y] [--allow-excluded] [--dry-run]
                                                 the annotators meeting the bar as a participant group
  invite-back STUDY --name NAME --sync [--dry-run]
                                                 that group brought up to date after a later round (its
                                                 bar's newcomers added; nobody removed)
  groups --as USERNAME                           the researcher's participant groups
  block PID --reason R --as USERNAME | unblock PID --as USERNAME | blocked --as USERNAME
                                                 the researcher's block list (applied to every launch)
  (launch takes --only-group NAME, --exclude-group NAME, --exclude-study ID, each repeatable)
  message STUDY --pool CODE [--participant PID] --body TEXT
                                                 a message to one participant of the pool's study, or all
  messages STUDY                                 the messages of the last 30 days about the study

Calls use the token of ``--as USERNAME`` (default: the study's owner), else PROLIFIC_API_TOKEN.
Each subcommand is one function over the same services the pages call.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from studies.models import CountryPool, Study

from ...prolific import DEVICES, ProlificError
from ...rules import RuleBroken, money
from ...selectors import prolific_preview, prolific_studies_of
from ...services import (
    FilterPick,
    LaunchOptions,
    RecruitmentRefused,
    prolific_places_sync,
    prolific_studies_launch,
    prolific_study_refresh,
    prolific_study_sync,
    prolific_study_transition,
    prolific_webhooks_setup,
)
from ...services.messages import prolific_message_send, prolific_messages_received
from ...tokens import ProlificNotConfigured

VERBS = ("publish", "pause", "resume", "stop")


class Command(BaseCommand):
    help = "A study's country pools on Prolific: launch (drafts), status, places, publish, pause, resume, stop."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="subcommand", required=True, metavar="SUBCOMMAND")
        launch = sub.add_parser("launch", help="Create each pool's Prolific study as a draft (idempotent).")
        self._common(launch)
        launch.add_argument("--reward", type=int, required=True, help="Per participant, in pence or cents.")
        launch.add_argument("--minutes", type=int, required=True, help="Estimated completion time in minutes.")
        launch.add_argument(
            "--screen-out-reward", type=int, default=None, metavar="MINOR",
            help="Pay screen-outs this fixed reward, in pence or cents (Prolific's minimum: 10p or 14c); "
            "default: an eligibility 'no' returns the study.",
        )
        launch.add_argument("--secured-entry", action="store_true",
                            help="Check Prolific's signed token on every entry link (its secured study URL).")
        launch.add_argument(
            "--max-minutes", type=int, default=None, help="Maximum allowed time (default: the least Prolific accepts)."
        )
        launch.add_argument(
            "--device", action="append", choices=DEVICES, default=None, help="Allowed device (repeat); default desktop."
        )
        launch.add_argument(
            "--filter", action="append", default=[], metavar="TITLE[=LABEL|LABEL]",
            help="A Prolific filter by its title, e.g. Nationality (the pool's country) or 'First Language=Hindi'.",
        )
        launch.add_argument(
            "--auto-approve", action="store_true", help="Prolific approves completed submissions itself."
        )
        launch.add_argument("--description", default="", help="The public description (default: a generated one).")
        launch.add_argument("--publish", action="store_true", help="Publish each pool's study after launching it.")
        self._common(sub.add_parser("status", help="Read each pool's study back from Prolific."))
        self._common(sub.add_parser(
            "places", help="Raise places to the open slots, pause a full pool, resume one whose slots reopened."
        ))
        for verb in VERBS:
            self._common(sub.add_parser(verb, help=f"{verb.capitalize()} each pool's study on Prolific."))
        self._common(sub.add_parser(
            "sync", help="Record each pool's submissions, give back leases webhooks missed, status and places."
        ))
        hooks = sub.add_parser("webhooks", help="Set up Prolific's webhooks (secret and subscriptions) for SITE_URL.")
        self._common(hooks)
        hooks.add_argument("--rotate", action="store_true", help="Make a new signing secret (replaces Prolific's).")
        self._rounds_arguments(sub, launch)
        self._messages_parsers(sub)

    # --- rounds (services/rounds.py) ------------------------------------------------------------

    ROUNDS = ("invite-back", "groups", "block", "unblock", "blocked")

    def _rounds_arguments(self, sub, launch) -> None:
        launch.add_argument("--only-group", action="append", default=[], metavar="NAME",
                            help="Restrict to this participant group of yours (repeat: any of them).")
        launch.add_argument("--exclude-group", action="append", default=[], metavar="NAME",
                            help="Exclude this participant group of yours.")
        launch.add_argument("--exclude-study", action="append", type=int, default=[], metavar="ID",
                            help="Exclude whoever took part in this earlier study of yours on Prolific.")
        invite = sub.add_parser("invite-back", help="The study's annotators meeting a bar as a Prolific group.")
        self._common(invite)
        invite.add_argument("--name", required=True, help="The group's name.")
        invite.add_argument("--min-quality", type=float, default=None, help="Least quality score (0-1).")
        invite.add_argument("--min-gold", type=float, default=None, help="Least gold accuracy (0-1).")
        invite.add_argument("--allow-excluded", action="store_true", help="Also annotators excluded or blocked.")
        invite.add_argument("--dry-run", action="store_true", help="Say how many meet the bar; change nothing.")
        invite.add_argument("--sync", action="store_true",
                            help="Bring the group NAME up to date with its own bar: add newcomers, remove nobody.")
        for name, text in (("groups", "Your participant groups."), ("blocked", "Your block list.")):
            sub.add_parser(name, help=text).add_argument("--as", dest="as_user", required=True)
        block = sub.add_parser("block", help="Block a participant from every launch of yours.")
        block.add_argument("participant")
        block.add_argument("--reason", required=True)
        block.add_argument("--as", dest="as_user", required=True)
        unblock = sub.add_parser("unblock", help="Take a participant off your block list.")
        unblock.add_argument("participant")
        unblock.add_argument("--as", dest="as_user", required=True)

    def _rounds(self, subcommand: str, options) -> None:
        from ...services import rounds

        if subcommand == "invite-back":
            self._invite_back(options)
            return
        user = get_user_model().objects.filter(username=options["as_user"]).first()
        if user is None:
            raise CommandError(f"no user named {options['as_user']!r}")
        if subcommand == "groups":
            for g in rounds.groups_of(user=user):
                self.stdout.write(f"{g.pk}\t{g.name}\t{g.members_n} members\t{g.prolific_id or '-'}")
        elif subcommand == "blocked":
            for b in rounds.blocked_of(user=user):
                self.stdout.write(f"{b.participant_id}\t{b.created_at:%Y-%m-%d}\t{b.reason}")
        elif subcommand == "block":
            rounds.participant_block(user=user, participant_id=options["participant"], reason=options["reason"])
            self.stdout.write("blocked")
        elif not rounds.participant_unblock(user=user, participant_id=options["participant"]):
            raise CommandError("not on the block list")
        else:
            self.stdout.write("unblocked")

    def _invite_back(self, options) -> None:
        from ...services import rounds

        study = Study.objects.filter(pk=options["study"]).select_related("owner").first()
        if study is None:
            raise CommandError(f"no study with id {options['study']}")
        user = self._acting_user(study, options["as_user"])
        if study.owner_id != user.pk:
            raise CommandError("only the study's owner invites its annotators back")
        if options["sync"]:
            self._group_sync(study, user, options)
            return
        bar = rounds.Bar(options["min_quality"], options["min_gold"], not options["allow_excluded"])
        if problems := bar.problems():
            raise CommandError("; ".join(f"--{k.replace('_', '-')}: {v}" for k, v in problems.items()))
        preview = rounds.invite_preview(study=study, bar=bar)
        self.stdout.write(f"{preview.count} of {preview.annotators} annotators meet the bar")
        if not options["dry_run"]:
            group = rounds.invite_back(study=study, bar=bar, name=options["name"], user=user,
                                       participant_ids=preview.participant_ids)
            self.stdout.write(f"group {group.name!r} on Prolific: {group.prolific_id} "
                              f"({group.members.count()} members)")

    def _group_sync(self, study: Study, user, options) -> None:
        from ...services import rounds

        if options["min_quality"] is not None or options["min_gold"] is not None or options["allow_excluded"]:
            raise CommandError("--sync keeps the group's own bar: give no --min-quality, --min-gold, --allow-excluded")
        group = rounds.groups_of(user=user).filter(name=options["name"], source_study=study).first()
        if group is None:
            raise CommandError(f"no participant group of yours named {options['name']!r} drawn from this study")
        done = rounds.group_sync(group=group, user=user, dry_run=options["dry_run"])
        verb = "would be added" if options["dry_run"] else "added"
        self.stdout.write(f"{len(done.added)} newly meeting the bar {verb}; "
                          f"{len(done.no_longer)} no longer meet it (kept)")

    @staticmethod
    def _round_choice(study: Study, user, options) -> dict:
        from ...services import rounds

        mine = {g.name: g.pk for g in rounds.groups_of(user=user)}
        unknown = [n for n in options["only_group"] + options["exclude_group"] if n not in mine]
        if unknown:
            raise CommandError(f"no participant group of yours named {unknown[0]!r}")
        return {"allow_groups": tuple(mine[n] for n in options["only_group"]),
                "block_groups": tuple(mine[n] for n in options["exclude_group"]),
                "exclude_studies": tuple(options["exclude_study"])}

    # --- messages (issue 28, part 2): kept apart from the subcommands above -------------------

    def _messages_parsers(self, sub) -> None:
        message = sub.add_parser(
            "message", help="Message one participant of a pool's study (--participant), or every participant of it."
        )
        self._common(message)
        message.add_argument("--participant", default="", help="A participant's Prolific id; default: all of them.")
        message.add_argument("--body", required=True, help="The message (at most 5,000 characters).")
        self._common(sub.add_parser("messages", help="The messages of the last 30 days about the study."))
        self._common(sub.add_parser(
            "test-study", help="Walk a pool as Prolific sends it: your test participant and a test copy of its "
            "draft on Prolific (where the workspace allows), and the test link that walks it here."))

    def _message(self, pools: list[CountryPool], user, *, pool_named: str, participant: str, body: str) -> None:
        if not pool_named:
            raise CommandError("--pool is required: the pool whose participants are messaged")
        result = prolific_message_send(pool=pools[0], user=user, body=body, participant_id=participant.strip())
        self.stdout.write(f"{pools[0].country_name} ({pools[0].country}): {result.summary}")

    def _messages(self, study: Study, user) -> None:
        received = prolific_messages_received(study=study, user=user)
        if not received:
            self.stdout.write("No message about this study's Prolific studies in the last 30 days.")
        for m in received:
            when = m.sent_at.strftime("%Y-%m-%d %H:%M") if m.sent_at else "?"
            self.stdout.write(f"{when}  {m.sender_id}  (study {m.study_id})\n  {m.body}")

    def _test_study(self, pools: list[CountryPool], user, *, pool_named: str) -> None:
        from annotation.trial_entry import trial_link

        from ...services.trials import prolific_test_study_create

        if not pool_named:
            raise CommandError("--pool is required: the pool to walk")
        pool = pools[0]
        self.stdout.write(f"{pool.country_name} ({pool.country}): test link (walks it here, counted nowhere): "
                          f"{trial_link(pool)}")
        try:
            made = prolific_test_study_create(pool=pool, user=user)
        except (RecruitmentRefused, ProlificNotConfigured, ProlificError) as exc:
            self.stderr.write(f"no test study on Prolific: {exc}")
            return
        self.stdout.write(f"Prolific's test study {made.study_id} for your test participant {made.participant_id}: "
                          f"{made.study_url or 'open it on Prolific'}")

    # --- end of messages --------------------------------------------------------------------

    @staticmethod
    def _common(parser):
        parser.add_argument("study", type=int, help="The study's id.")
        parser.add_argument("--pool", default="", help="Only this pool (its country code, e.g. IN).")
        parser.add_argument(
            "--as", dest="as_user", default="", help="Whose Prolific token (default: the study's owner)."
        )

    def handle(self, *args, subcommand: str, **options):
        if subcommand in self.ROUNDS:
            try:
                return self._rounds(subcommand, options)
            except (ProlificNotConfigured, RecruitmentRefused, ProlificError) as exc:
                raise CommandError(str(exc)) from None
        study, pool, as_user = options.pop("study"), options.pop("pool"), options.pop("as_user")
        target = Study.objects.filter(pk=study).select_related("owner").first()
        if target is None:
            raise CommandError(f"no study with id {study}")
        pools = self._pools_named(target, pool)
        user = self._acting_user(target, as_user)
        actions = {
            "launch": lambda: self._launch(pools, user, options),
            "status": lambda: self._status(target, pools, user),
            "places": lambda: self._places(target, pools, user),
            "sync": lambda: self._sync(target, pools, user),
            "webhooks": lambda: self._webhooks(user, rotate=options["rotate"]),
            "message": lambda: self._message(pools, user, pool_named=pool, participant=options["participant"],
                                             body=options["body"]),
            "messages": lambda: self._messages(target, user),
            "test-study": lambda: self._test_study(pools, user, pool_named=pool),
        }
        try:
            actions.get(subcommand, lambda: self._transition(target, pools, user, subcommand))()
        except (ProlificNotConfigured, RecruitmentRefused, ProlificError) as exc:
            raise CommandError(str(exc)) from None

    @staticmethod
    def _pools_named(study: Study, code: str) -> list[CountryPool]:
        """The study's pools, or only the one of ``--pool``; refused when that leaves none."""
        pools = list(study.pools.order_by("country"))
        if code:
            pools = [p for p in pools if p.country == code.upper()]
            if not pools:
                raise CommandError(f"the study has no pool {code.upper()}")
        if not pools:
            raise CommandError("the study has no country pool")
        return pools

    @staticmethod
    def _acting_user(study: Study, username: str):
        """Whose Prolific token the calls use: ``--as``'s user, else the study's owner."""
        if not username:
            return study.owner
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        return user

    def _launch(self, pools: list[CountryPool], user, options) -> None:
        try:
            picks = tuple(FilterPick.parse(text) for text in options["filter"])
        except RuleBroken as exc:
            raise CommandError(f"--filter: {exc}") from None
        launch_options = LaunchOptions(
            reward=options["reward"],
            estimated_minutes=options["minutes"],
            maximum_allowed_minutes=options["max_minutes"],
            devices=tuple(options["device"] or ("desktop",)),
            filter_picks=picks,
            auto_approve=options["auto_approve"],
            description=options["description"],
            screen_out_reward=options["screen_out_reward"],
            secured_entry=options["secured_entry"],
            **self._round_choice(pools[0].study, pools[0].study.owner, options),
        )
        results = prolific_studies_launch(study=pools[0].study, user=user, options=launch_options, pools=pools)
        for result in results:
            row = result.prolific_study
            if not result.ok or row is None:
                self.stderr.write(f"{result.error}: not launched")
                continue
            pool = row.pool
            said = "created as a draft" if result.created else "already on Prolific"
            self.stdout.write(
                f"{pool.country_name} ({pool.country}): {said}, Prolific study {row.prolific_id}, "
                f"{row.places} places at {money(row.reward, row.currency)}, status {row.get_status_display()}"
            )
            preview = prolific_preview(prolific_study=row, user=user)
            self.stdout.write(
                f"  eligible participants: {preview.eligible or 'fewer than 25'}; rewards {preview.rewards_text}, "
                f"total cost with Prolific's fees {preview.total_cost_text}"
            )
            if options["publish"]:
                prolific_study_transition(prolific_study=row, verb="publish", user=user)
                self.stdout.write(f"  published: {row.get_status_display()}")
        failed = [r.error for r in results if not r.ok]
        if failed:
            raise CommandError(f"{len(failed)} of {len(results)} pools not launched ({'; '.join(failed)}); "
                               "the same command tries them again and leaves the others as they are")

    def _status(self, study: Study, pools: list[CountryPool], user) -> None:
        rows = {row.pool_id: row for row in prolific_studies_of(study=study)}
        for pool in pools:
            row = rows.get(pool.pk)
            if row is None or not row.created:
                self.stdout.write(f"{pool.country_name} ({pool.country}): not on Prolific")
                continue
            prolific_study_refresh(prolific_study=row, user=user)
            self.stdout.write(
                f"{pool.country_name} ({pool.country}): {row.prolific_id} {row.get_status_display()}, "
                f"{row.places} places"
            )

    def _places(self, study: Study, pools: list[CountryPool], user) -> None:
        rows = {row.pool_id: row for row in prolific_studies_of(study=study)}
        for pool in pools:
            row = rows.get(pool.pk)
            if row is None or not row.created:
                self.stdout.write(f"{pool.country_name} ({pool.country}): not on Prolific, skipped")
                continue
            result = prolific_places_sync(prolific_study=row, user=user)
            self.stdout.write(
                f"{pool.country_name} ({pool.country}): {result.open_slots} open slots, {row.places} places, "
                f"{row.get_status_display()}; {result.changed or 'nothing to change'}"
            )

    def _sync(self, study: Study, pools: list[CountryPool], user) -> None:
        rows = {row.pool_id: row for row in prolific_studies_of(study=study)}
        for pool in pools:
            row = rows.get(pool.pk)
            if row is None or not row.created:
                self.stdout.write(f"{pool.country_name} ({pool.country}): not on Prolific, skipped")
                continue
            result = prolific_study_sync(prolific_study=row, user=user)
            self.stdout.write(
                f"{pool.country_name} ({pool.country}): {result.seen} submissions, {row.get_status_display()}; "
                f"places: {result.places or 'nothing to change'}"
            )
            for line in result.changed:
                self.stdout.write(f"  {line}")

    def _webhooks(self, user, *, rotate: bool) -> None:
        for result in prolific_webhooks_setup(user=user, rotate=rotate):
            secret = "new signing secret stored" if result.secret_created else "signing secret kept"
            self.stdout.write(
                f"workspace {result.workspace_id}: {secret}; subscribed: {', '.join(result.subscribed) or 'none'}; "
                f"already there: {', '.join(result.kept) or 'none'}"
            )

    def _transition(self, study: Study, pools: list[CountryPool], user, verb: str) -> None:
        rows = {row.pool_id: row for row in prolific_studies_of(study=study)}
        failed = 0
        for pool in pools:
            row = rows.get(pool.pk)
            if row is None or not row.created:
                self.stdout.write(f"{pool.country_name} ({pool.country}): not on Prolific, skipped")
                continue
            try:
                prolific_study_transition(prolific_study=row, verb=verb, user=user)
            except (RecruitmentRefused, ProlificError) as exc:
                failed += 1
                self.stderr.write(f"{pool.country_name} ({pool.country}): {exc}")
                continue
            self.stdout.write(f"{pool.country_name} ({pool.country}): {row.get_status_display()}")
        if failed:
            raise CommandError(f"{verb} failed for {failed} pool(s)")
