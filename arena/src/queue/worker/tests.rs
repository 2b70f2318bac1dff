use super::*;

/// Regression: consecutive matches ran on whichever blocking thread tokio had free, each
/// with a cold heap. Every match of a loop now plays on one thread, and a match that
/// panics fails alone: the next one still plays, on the same thread.
#[tokio::test]
async fn every_match_of_a_loop_plays_on_one_thread_and_a_panic_fails_only_its_match() {
    let player = PlayThread::start("test").expect("play thread");
    let first = player
        .submit(|| std::thread::current().id())
        .expect("queued")
        .await
        .expect("answered")
        .expect("first");
    let panicked = player
        .submit(|| -> u32 { panic!("an agent broke the host") })
        .expect("queued")
        .await
        .expect("answered");
    assert!(
        panicked
            .as_ref()
            .is_err_and(|e| e.contains("an agent broke the host")),
        "{panicked:?}"
    );
    let after = player
        .submit(|| std::thread::current().id())
        .expect("queued")
        .await
        .expect("answered")
        .expect("after the panic");
    assert_eq!(first, after);
    assert_ne!(first, std::thread::current().id());
}

/// A queue of jobs already leased, as a remote worker's spares from a batch.
struct Spares(std::sync::Mutex<std::collections::VecDeque<Job>>);

impl Queue for Spares {
    async fn lease(&self, _batch: bool) -> Result<Option<Job>, String> {
        Ok(self.0.lock().map_err(|e| e.to_string())?.pop_front())
    }
    async fn heartbeat(&self, _job: &Job) -> Result<bool, String> {
        Ok(true)
    }
    async fn report(&self, _: &Job, _: Vec<GameRecord>, _: bool) -> Result<Stored, String> {
        Ok(Stored::Ok)
    }
    async fn release(&self, _job: &Job) {}
    async fn agent_path(&self, sha256: &str) -> Result<PathBuf, String> {
        Ok(PathBuf::from(sha256))
    }
    fn has_spare(&self) -> bool {
        self.0.lock().is_ok_and(|s| !s.is_empty())
    }
}

fn job(match_id: i64) -> Job {
    Job {
        match_id,
        lease: format!("w1-{match_id}"),
        lease_ms: 60_000,
        seed: 7,
        deals: 8,
        duplicate: true,
        entrants: Vec::new(),
        todo: (0..16).collect(),
    }
}

fn held(match_id: i64) -> Held {
    Held {
        job: job(match_id),
        beat: tokio::spawn(async {}),
    }
}

fn ids(group: &[Held]) -> Vec<i64> {
    group.iter().map(|h| h.job.match_id).collect()
}

/// Regression: after short matches each one was handed to the play thread alone, and
/// its outcome woke the loop: a fifth of the loop's time at 8-deal matches. The jobs a
/// batch brought now go over together, a batch at most, in lease order; after a long
/// match (depth 1) a job still goes alone, so that none waits behind a long one.
#[tokio::test]
async fn short_matches_go_to_the_play_thread_a_batch_at_a_time() {
    let queue = Arc::new(Spares(std::sync::Mutex::new((2..20).map(job).collect())));
    let after_long = group(&queue, "w1", held(1), 1).await;
    assert_eq!(ids(&after_long), vec![1]);
    let first = group(&queue, "w1", held(1), MAX_LEASES_AHEAD).await;
    let want: Vec<i64> = (1..=MAX_GROUP as i64).collect();
    assert_eq!(ids(&first), want);
    let second = group(&queue, "w1", held(100), MAX_LEASES_AHEAD).await;
    assert_eq!(ids(&second)[..2], [100, MAX_GROUP as i64 + 1]);
    assert!(second.len() <= MAX_GROUP);
    // Only what is at hand: a group never waits for a lease call.
    queue.0.lock().expect("spares").clear();
    assert_eq!(
        ids(&group(&queue, "w1", held(200), MAX_LEASES_AHEAD).await),
        vec![200]
    );
    for h in first.into_iter().chain(second) {
        h.beat.abort();
    }
}

fn tail() -> Tail {
    Tail {
        writer: None,
        last: Vec::new(),
        lost: Arc::new(AtomicBool::new(false)),
        played: Ok(()),
    }
}

/// In a group, a match that panics fails alone (the next still plays), and once the
/// loop cancels, the matches not yet started are skipped.
#[test]
fn a_group_plays_on_past_a_panic_and_stops_at_a_cancel() {
    let cancel = AtomicBool::new(false);
    let jobs = (1..=4).map(|i| (job(i), Vec::new())).collect();
    let played = play_group(jobs, &cancel, |job, _| match job.match_id {
        2 => panic!("an agent broke the host"),
        3 => {
            cancel.store(true, Ordering::Relaxed);
            Ok(tail())
        }
        _ => Ok(tail()),
    });
    let kinds: Vec<String> = played
        .iter()
        .map(|p| match p {
            Played::Done(Ok(_), _) => "ok".to_string(),
            Played::Done(Err(e), _) => e.to_string(),
            Played::Skipped => "skipped".to_string(),
        })
        .collect();
    assert_eq!(kinds.len(), 4);
    assert_eq!(kinds[0], "ok");
    assert!(kinds[1].contains("match 2") && kinds[1].contains("an agent broke the host"));
    assert_eq!(kinds[2..], ["ok", "skipped"]);
}

/// Regression: a group played through a long match (one of an ISMCTS agent, seconds)
/// held the matches behind it, and the loop heard of none of them until the group
/// ended. The matches after a long one now go back to the queue unplayed.
#[test]
fn a_group_gives_back_what_follows_a_long_match() {
    let cancel = AtomicBool::new(false);
    let jobs = (1..=4).map(|i| (job(i), Vec::new())).collect();
    let played = play_group(jobs, &cancel, |job, _| {
        if job.match_id == 2 {
            std::thread::sleep(SHORT_MATCH);
        }
        Ok(tail())
    });
    let done: Vec<bool> = played
        .iter()
        .map(|p| matches!(p, Played::Done(Ok(_), _)))
        .collect();
    assert_eq!(done, [true, true, false, false]);
    assert!(matches!(played[3], Played::Skipped));
}

/// Regression: the play thread idled between matches while the loop, woken by the
/// previous match's outcome, handed it the next one (0.1 ms a match). A job queued behind
/// a playing one now starts when that one ends, with nobody awaiting the first.
#[tokio::test]
async fn a_queued_match_starts_when_the_one_before_it_ends() {
    let player = PlayThread::start("test").expect("play thread");
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let first = player.submit(move || wait.recv().is_ok()).expect("queued");
    let second = player.submit(|| 2).expect("queued");
    go.send(()).expect("first is waiting");
    // Only the second's outcome is awaited: the first's receiver is never polled.
    assert_eq!(second.await.expect("answered"), Ok(2));
    drop(first);
}
