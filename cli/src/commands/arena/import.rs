//! `croupier arena team import DIR CLASS.csv --tokens FILE`: a whole class at once.
//!
//! The class list is CSV: the team's name in the first column, anything else (the students'
//! addresses, say) carried to the tokens file as it is. A first row whose first cell is
//! `team` or `name` is a header. Every line is checked before any team is added (a name the
//! arena would refuse, a name twice, a name already taken), so a bad list adds nothing and
//! says which lines are wrong. The tokens file is made new (never overwritten), readable by
//! its owner only, and each token is written to it as its team is added, so a failure half-way
//! loses no token already issued: it is the only copy, since the arena keeps only hashes.

use super::common::Place;
use anyhow::{Context, Result, bail};
use croupier_arena::context::Arena;
use croupier_arena::web::manage;
use std::collections::HashMap;
use std::path::Path;

/// One team to add: its line in the file, its name as it will be stored, the other cells.
struct Entry {
    line: u64,
    name: String,
    rest: Vec<String>,
}

/// Reads and checks the class list: every problem, by line, or the entries.
fn read_class(path: &Path) -> Result<(Vec<String>, Vec<Entry>)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_path(path)
        .with_context(|| format!("{}: cannot read the class list", path.display()))?;
    let (mut header, mut entries, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    // By the key under which look-alikes are one name, so "Аlpha" after "Alpha" is named.
    let mut seen: HashMap<String, (u64, String)> = HashMap::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("{}: not CSV", path.display()))?;
        let line = record.position().map_or(i as u64 + 1, |p| p.line());
        let cells: Vec<String> = record.iter().map(String::from).collect();
        let Some(first) = cells.first().filter(|c| !c.is_empty()) else {
            if cells.iter().any(|c| !c.is_empty()) {
                problems.push(format!("line {line}: no team name in the first column"));
            }
            continue;
        };
        if i == 0 && ["team", "name"].contains(&first.to_lowercase().as_str()) {
            header = cells;
            continue;
        }
        match manage::team_name(first) {
            Err(e) => problems.push(format!("line {line}: {e}")),
            Ok(name) => {
                match seen.insert(croupier_arena::names::name_key(&name), (line, name.clone())) {
                    Some((before, was)) => problems.push(format!(
                        "line {line}: `{}` is already on line {before}{}",
                        croupier_host::text::escape(&name),
                        if was == name {
                            String::new()
                        } else {
                            format!(
                                " as `{}`, which reads the same",
                                croupier_host::text::escape(&was)
                            )
                        }
                    )),
                    None => entries.push(Entry {
                        line,
                        name,
                        rest: cells[1..].to_vec(),
                    }),
                }
            }
        }
    }
    if !problems.is_empty() {
        bail!(
            "{}: nothing was added:\n  {}",
            path.display(),
            problems.join("\n  ")
        );
    }
    if entries.is_empty() {
        bail!("{}: no teams in the file", path.display());
    }
    Ok((header, entries))
}

/// A new file, readable and writable by its owner only; refused if it exists.
fn new_private_file(path: &Path) -> Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path).with_context(|| {
        format!(
            "{}: cannot make the tokens file (it must not exist yet)",
            path.display()
        )
    })
}

/// Imports the class list into the arena in `dir`; prints what was done.
pub async fn import(at: &Place, class: &Path, tokens: &Path) -> Result<()> {
    let (dir, database) = (at.dir.as_path(), at.database.as_deref());
    let (header, entries) = read_class(class)?;
    let arena = Arena::open(dir, database).await?;
    let taken = manage::team_names(&arena).await?;
    // The same name, or one that reads the same (Unicode TS #39), as `team add` refuses.
    let clashes: Vec<String> = entries
        .iter()
        .filter_map(|e| {
            let why = manage::name_clash(&e.name, taken.iter().map(String::as_str), "team")?;
            Some(format!("line {}: {why}", e.line))
        })
        .collect();
    if !clashes.is_empty() {
        arena.db.close().await;
        bail!(
            "{}: nothing was added:\n  {}",
            class.display(),
            clashes.join("\n  ")
        );
    }
    let mut out = csv::Writer::from_writer(new_private_file(tokens)?);
    let mut head = vec!["team".to_string(), "token".to_string()];
    head.extend(header.iter().skip(1).cloned());
    out.write_record(&head)?;
    out.flush()?;
    for e in &entries {
        let t = manage::add_team(&arena, &e.name)
            .await
            .map_err(|x| anyhow::anyhow!("{}: line {}: {x}", class.display(), e.line))?;
        let mut row = vec![t.name.clone(), t.token];
        row.extend(e.rest.iter().cloned());
        out.write_record(&row)?;
        // Each token is on disk before the next team is added: it is the only copy.
        out.flush()
            .with_context(|| format!("{}: writing a token", tokens.display()))?;
    }
    arena.db.close().await;
    println!(
        "{} teams added. Their tokens are in {} (readable by you only, shown nowhere else): \
         give each team its line, then delete the file.",
        entries.len(),
        tokens.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> Result<(Vec<String>, Vec<Entry>)> {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(file.path(), text).expect("write");
        read_class(file.path())
    }

    #[test]
    fn a_class_list_is_read_with_its_header_quotes_and_extra_columns() {
        let (header, entries) =
            class("team,email\nalpha,a@uni.example\n\"Smith, Jones\",s@uni.example\n\n  gamma  \n")
                .expect("reads");
        assert_eq!(header, ["team", "email"]);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["alpha", "Smith, Jones", "gamma"]);
        assert_eq!(entries[1].rest, ["s@uni.example"]);
        assert_eq!(entries[1].line, 3);
    }

    /// Every bad line is named, and none is taken: a zero-width space, a name twice (after
    /// NFKC, full-width "ａlpha" is "alpha"), an empty first cell with other cells, and a name
    /// that reads the same as an earlier one (TS #39: "rn" reads as "m").
    #[test]
    fn a_bad_list_names_every_bad_line_and_adds_nothing() {
        let e = class("alpha\nAl\u{200b}pha\n\u{ff41}lpha\n,x@uni.example\ngamma\ngarnrna\n")
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("nothing was added"), "{e}");
        assert!(
            e.contains("line 2: the team name `Al\u{200b}pha` holds U+200B"),
            "{e}"
        );
        assert!(e.contains("line 3: `alpha` is already on line 1"), "{e}");
        assert!(
            e.contains("line 4: no team name in the first column"),
            "{e}"
        );
        assert!(
            e.contains("line 6: `garnrna` is already on line 5 as `gamma`, which reads the same"),
            "{e}"
        );
    }
}
