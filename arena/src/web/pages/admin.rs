//! The organiser's pages: `/admin` (teams, workers, the storage budget, the final's state)
//! and its forms, each a POST behind the sign-in cookie and a CSRF token, answering with the
//! admin page and a notice (a new token is shown once, there and nowhere else).

use super::*;
/// `/admin`: teams, and a form that adds one and shows its token once.
pub async fn admin(State(arena): State<Arc<Arena>>, v: Viewer) -> PageResult {
    identity::require_admin(&v.who)?;
    Ok(page(admin_markup(&arena, &v, None).await?))
}

/// What the admin page says on top after an action.
enum Notice {
    /// A token, shown this once: `what` (`Team`, `Worker`) `t` `done`.
    Token {
        what: &'static str,
        done: Issued,
        t: manage::TeamToken,
    },
    /// A worker removed, by name.
    Removed(String),
    /// A team withdrawn or reinstated.
    Standing(manage::Standing),
}

async fn admin_markup(
    arena: &Arena,
    v: &Viewer,
    notice: Option<Notice>,
) -> Result<Markup, AppError> {
    let crate::web::views::AdminJson {
        teams,
        workers,
        games: stored,
        pending,
        frozen,
        storage,
    } = crate::web::views::admin_json(arena).await?;
    let now = crate::now_ms();
    // An action that locks someone out asks for a tick first (no script needed).
    let confirm =
        html! { label { input type="checkbox" name="confirm" value="yes" required; " sure" } };
    let csrf = csrf_input(v);
    let body = html! {
        h1 { "Admin" }
        @match &notice {
            Some(Notice::Token { what, done, t }) => div.notice #new-token {
                p { (what) " " strong { (t.name) } " " (done.says()) ". Its token, shown only this once:" }
                pre { code { (t.token) } }
            },
            Some(Notice::Removed(name)) => div.notice #removed {
                p { "Worker " strong { (name) } " removed: its token no longer works, and the matches it held go to other workers when their leases run out." }
            },
            Some(Notice::Standing(t)) => div.notice #standing {
                @match &t.withdrawn {
                    Some(_) => p { "Team " strong { (t.name) } " withdrawn: it plays no new games, leaves the ranking and takes no uploads. Its games stay." },
                    None => p { "Team " strong { (t.name) } " is back in the ladder." },
                }
            },
            None => {}
        }
        p { (plural(teams.len() as i64, "team")) " · " (plural(stored, "game")) " stored · " (plural(pending, "match")) " waiting" @if frozen { " · frozen for the final" } }
        form method="post" action="/admin/teams" {
            (csrf)
            label { "new team " input type="text" name="name" maxlength="64" required; }
            button { "add" }
        }
        table #teams { thead { tr { th { "id" } th { "team" } th { "added" } th { "token" } th { "ladder" } } }
            tbody { @for t in &teams { tr {
                td { (t.id) } td { a href={ "/teams/" (t.id) } { (t.name) } } td { (when(t.created_ms)) }
                td { form.act method="post" action={ "/admin/teams/" (t.id) "/token" } { (csrf) (confirm) button { "new token" } } }
                td { @match &t.withdrawn {
                    Some(why) => {
                        "withdrawn" @if !why.is_empty() { ": " (why) } " "
                        form.act method="post" action={ "/admin/teams/" (t.id) "/reinstate" } { (csrf) button { "reinstate" } }
                    },
                    None => form.act method="post" action={ "/admin/teams/" (t.id) "/withdraw" } {
                        (csrf)
                        input type="text" name="reason" placeholder="reason (shown to all)" maxlength=(manage::MAX_REASON_CHARS);
                        (confirm) button { "withdraw" }
                    },
                } }
            } } }
        }
        h2 { "Storage" }
        (storage_markup(&storage))
        h2 { "Workers" }
        p.muted { "Each runs " code { "croupier arena worker" } " on a machine of its own with its token; a new token or removing it locks the old token out at once." }
        form method="post" action="/admin/workers" {
            (csrf)
            label { "new worker " input type="text" name="name" maxlength="64" required; }
            button { "add" }
        }
        table #workers { thead { tr { th { "id" } th { "worker" } th { "last heard from" } th { "token" } } }
            tbody { @for w in &workers { tr {
                td { (w.id) } td { (w.name) }
                td { @match w.seen_ms { Some(ms) => { ((now - ms).max(0) / 1000) " s ago" }, None => "never" } }
                td {
                    form.act method="post" action={ "/admin/workers/" (w.id) "/token" } { (csrf) (confirm) button { "new token" } }
                    form.act method="post" action={ "/admin/workers/" (w.id) "/remove" } { (csrf) (confirm) button { "remove" } }
                }
            } } }
        }
    };
    Ok(layout(arena, v, "Admin", body))
}

/// The storage budget on the admin page: what the games take, what the last pass dropped,
/// and whether the ladder is paused for want of room.
fn storage_markup(s: &views::StorageJson) -> Markup {
    let c = &s.config;
    let mib = |b: i64| crate::web::errors::mib(b.max(0) as u64);
    html! {
        div #storage {
            p.muted {
                "Budget " (c.budget_mb) " MiB. Logs kept up to " (c.log_bytes_per_game) " bytes per agent per game; games of the last "
                (c.keep_hours) " hours keep their replays and logs, older matches one in " (c.keep_one_in)
                " (the others keep their results). Applied every " (c.prune_seconds) " s, or now with "
                code { "croupier arena prune DIR" } "."
            }
            @match &s.last {
                None => p { "The first pass is running." },
                Some(p) => {
                    @if p.after.full {
                        p.notice #storage-full { strong { "The ladder is paused:" } " the results alone fill the budget. Raise "
                            code { "storage.budget_mb" } " in arena.toml and restart the server." }
                    }
                    p {
                        "Games take " strong { (mib(p.after.bytes)) } " of " (mib(p.after.budget))
                        " (" (plural(p.after.games.games, "game")) ", " (mib(p.after.games.logs)) " of logs, "
                        (mib(p.after.games.replays)) " of replays, " (plural(p.after.games.pruned, "game")) " pruned); the database file is "
                        (mib(p.after.file_bytes)) "."
                    }
                    p.muted {
                        "Last pass " (when(p.at_ms)) ": " (p.by_rule) " games lost their replays by the retention rule; "
                        "the budget dropped the logs of " (p.logs) " and the replays of " (p.replays) "."
                    }
                },
            }
        }
    }
}

/// The add-team and add-worker forms.
#[derive(Deserialize)]
pub struct AddTeamForm {
    name: String,
}

/// The forms that lock a token out: ticked to confirm.
#[derive(Deserialize)]
pub struct ConfirmForm {
    confirm: Option<String>,
}

impl ConfirmForm {
    fn check(&self) -> Result<(), AppError> {
        self.ticked("the old token stops working")
    }

    /// 400 unless ticked, saying what the tick confirms.
    fn ticked(&self, because: &str) -> Result<(), AppError> {
        match self.confirm.as_deref() {
            Some("yes") => Ok(()),
            _ => Err(AppError::BadRequest(format!(
                "tick the box to confirm: {because}"
            ))),
        }
    }
}

/// The admin page with `notice` on top, as the answer to a form.
async fn admin_after(arena: &Arena, v: &Viewer, status: StatusCode, notice: Notice) -> PageResult {
    Ok((status, page(admin_markup(arena, v, Some(notice)).await?)).into_response())
}

/// Why a token was issued.
#[derive(Clone, Copy)]
enum Issued {
    /// For a new team or worker.
    Added,
    /// In place of one that leaked.
    Renewed,
}

impl Issued {
    fn says(self) -> &'static str {
        match self {
            Issued::Added => "added",
            Issued::Renewed => "has a new token; the old one no longer works",
        }
    }

    fn status(self) -> StatusCode {
        match self {
            Issued::Added => StatusCode::CREATED,
            Issued::Renewed => StatusCode::OK,
        }
    }
}

/// The admin page with a token just issued on top.
async fn issued(
    arena: &Arena,
    v: &Viewer,
    what: &'static str,
    done: Issued,
    t: Result<manage::TeamToken, AppError>,
) -> PageResult {
    let status = done.status();
    admin_after(arena, v, status, Notice::Token { what, done, t: t? }).await
}

/// `POST /admin/teams`.
pub async fn admin_add_team(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Form(f): Form<AddTeamForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    let t = manage::add_team(&arena, &f.name).await;
    issued(&arena, &v, "Team", Issued::Added, t).await
}

/// `POST /admin/teams/{id}/token`.
pub async fn admin_team_token(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<ConfirmForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.check()?;
    let t = manage::new_team_token(&arena, id).await;
    issued(&arena, &v, "Team", Issued::Renewed, t).await
}

/// The withdraw form: a reason, and the tick.
#[derive(Deserialize)]
pub struct WithdrawForm {
    #[serde(default)]
    reason: String,
    #[serde(flatten)]
    tick: ConfirmForm,
}

/// `POST /admin/teams/{id}/withdraw`.
pub async fn admin_withdraw_team(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<WithdrawForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.tick.ticked("a withdrawn team stops playing")?;
    let t = manage::withdraw_team(&arena, id, &f.reason).await?;
    admin_after(&arena, &v, StatusCode::OK, Notice::Standing(t)).await
}

/// `POST /admin/teams/{id}/reinstate`.
pub async fn admin_reinstate_team(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    let t = manage::reinstate_team(&arena, id).await?;
    admin_after(&arena, &v, StatusCode::OK, Notice::Standing(t)).await
}

/// `POST /admin/workers`.
pub async fn admin_add_worker(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Form(f): Form<AddTeamForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    let t = manage::add_worker(&arena, &f.name).await;
    issued(&arena, &v, "Worker", Issued::Added, t).await
}

/// `POST /admin/workers/{id}/token`.
pub async fn admin_worker_token(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<ConfirmForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.check()?;
    let t = manage::new_worker_token(&arena, id).await;
    issued(&arena, &v, "Worker", Issued::Renewed, t).await
}

/// `POST /admin/workers/{id}/remove`.
pub async fn admin_remove_worker(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<ConfirmForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.check()?;
    let name = manage::remove_worker(&arena, id).await?;
    admin_after(&arena, &v, StatusCode::OK, Notice::Removed(name)).await
}

#[cfg(test)]
mod tests {
    use super::plural;

    /// Regression: the admin page said "1 teams".
    #[test]
    fn counts_read_as_words() {
        assert_eq!(plural(1, "team"), "1 team");
        assert_eq!(plural(2, "team"), "2 teams");
        assert_eq!(plural(0, "game"), "0 games");
        assert_eq!(plural(1, "match"), "1 match");
        assert_eq!(plural(32, "match"), "32 matches");
    }
}
