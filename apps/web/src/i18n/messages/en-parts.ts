// English messages of the components and lib helpers (src/components, src/lib); spread into `en.ts`.
export const enParts = {
  // ActivityPanel: `by` is `me` or `other`; `target` (who was given or lost access) too.
  'activity.title': 'Activity of “{name}”',
  'activity.none': 'No activity in the last 90 days.',
  'activity.list': 'Activity, newest first',
  'activity.showMore': 'Show more',
  'activity.justNow': 'just now',
  'activity.someone': 'Someone',
  'activity.anItem': 'an item',
  'activity.place.folder': '“{name}”',
  'activity.place.mine': 'My files',
  'activity.place.owners': 'the owner’s files',
  'activity.place.hidden': 'a folder you cannot see',
  'activity.created':
    '{by, select, me {You created the folder “{item}”} other {{actor} created the folder “{item}”}}',
  'activity.uploaded': '{by, select, me {You uploaded “{item}”} other {{actor} uploaded “{item}”}}',
  'activity.renamed':
    '{by, select, me {You renamed “{from}” to “{to}”} other {{actor} renamed “{from}” to “{to}”}}',
  'activity.moved':
    '{by, select, me {You moved “{item}” from {from} to {to}} other {{actor} moved “{item}” from {from} to {to}}}',
  'activity.trashed':
    '{by, select, me {You moved “{item}” to the Trash} other {{actor} moved “{item}” to the Trash}}',
  'activity.restored': '{by, select, me {You restored “{item}”} other {{actor} restored “{item}”}}',
  'activity.versionUploaded':
    '{by, select, me {You uploaded a new version of “{item}”} other {{actor} uploaded a new version of “{item}”}}',
  'activity.versionRestored':
    '{by, select, me {You restored a version of “{item}”} other {{actor} restored a version of “{item}”}}',
  'activity.versionDeleted':
    '{by, select, me {You deleted an older version of “{item}”} other {{actor} deleted an older version of “{item}”}}',
  'activity.shared':
    '{by, select, me {You} other {{actor}}} shared “{item}” with {target, select, me {you} other {{email}}} as {role, select, editor {Editor} other {Viewer}}',
  'activity.invited':
    '{by, select, me {You} other {{actor}}} invited {target, select, me {you} other {{email}}} to “{item}” as {role, select, editor {Editor} other {Viewer}}',
  'activity.roleChanged':
    '{by, select, me {You} other {{actor}}} made {target, select, me {you} other {{email}}} {role, select, editor {an Editor} other {a Viewer}} of “{item}”',
  'activity.left': '{by, select, me {You left “{item}”} other {{actor} left “{item}”}}',
  'activity.removed':
    '{by, select, me {You} other {{actor}}} removed {target, select, me {your} other {{email}’s}} access to “{item}”',
  // VersionsPanel: `by` is `me`, `other` (then `name`) or `someone`; `when` is the time.
  'versions.title': 'Versions of “{name}”',
  'versions.list': 'Versions, newest first',
  'versions.version': 'Version {n}',
  'versions.current': 'Version {n} (current)',
  'versions.meta':
    '{size} · {how, select, restored {restored} other {uploaded}} by {by, select, me {you} someone {someone} other {{name}}} · {when}',
  'versions.previewOne': 'Preview version {n}',
  'versions.downloadOne': 'Download version {n}',
  'versions.restoreOne': 'Restore version {n}',
  'versions.deleteOne': 'Delete version {n}',
  'versions.preview': 'Preview',
  'versions.download': 'Download',
  'versions.restore': 'Restore',
  'versions.delete': 'Delete',
  'versions.restored': 'Restored a version of “{name}”.',
  'versions.deleted': 'Version deleted.',
  // FolderPresence: `names` is a list (formatList).
  'presence.alsoHere': 'Also here: {names}',
  // entry-menu: the commands on entries.
  'cmd.open': 'Open',
  'cmd.preview': 'Preview',
  'cmd.download': 'Download',
  'cmd.share': 'Share',
  'cmd.activity': 'Activity',
  'cmd.versions': 'Versions',
  'cmd.rename': 'Rename',
  'cmd.move': 'Move',
  'cmd.star': 'Add star',
  'cmd.unstar': 'Remove star',
  'cmd.trash': 'Move to Trash',
  'cmd.restore': 'Restore',
  'cmd.deleteForever': 'Delete forever',
  // Browser
  'browser.zipName':
    '{count, plural, one {Drive download (# item).zip} other {Drive download (# items).zip}}',
  'browser.selectionActions': 'Selection actions',
  'browser.selected': '{count, plural, other {# selected}}',
  'browser.clearSelection': 'Clear selection',
  'browser.renameFile': 'Rename file',
  'browser.renameFolder': 'Rename folder',
  'browser.newName': 'New name',
  'browser.deleteFileConfirm': 'Delete “{name}” forever? This cannot be undone.',
  'browser.deleteFolderConfirm':
    'Delete “{name}” and everything in it forever? This cannot be undone.',
  'browser.deleteConfirm':
    '{count, plural, one {Delete # item forever (and everything in the folders)? This cannot be undone.} other {Delete # items forever (and everything in the folders)? This cannot be undone.}}',
  'browser.theFolder': 'the folder',
  // FileGrid, MoveDialog, Preview, ReplaceDialog
  'grid.uploading': '{size} · uploading',
  'move.titleOne': 'Move “{name}”',
  'move.title': '{count, plural, one {Move # item} other {Move # items}}',
  'move.destination': 'Destination',
  'preview.type': '{type} ({mime})',
  'replace.titleOne': '“{name}” already exists',
  'replace.title': '{count, plural, one {# file already exists} other {# files already exist}}',
  'replace.bodyOne':
    'A file with this name is already in this folder. Replace keeps the current content as an older version; Keep both adds a copy with a number after the name.',
  'replace.body':
    'Files with these names are already in this folder: {names}. Replace keeps the current content as an older version; Keep both adds copies with a number after the name.',
  'replace.keep': 'Keep both',
  'replace.replace': 'Replace',
  // PeopleSection: `role` is `viewer` or `editor`.
  'people.role.owner': 'Owner',
  'people.role.editor': 'Editor',
  'people.role.viewer': 'Viewer',
  'people.invitationSent': 'Invitation sent',
  'people.inheritedFrom': 'Inherited from “{name}”',
  'people.inheritedAbove': 'Inherited from a folder above',
  'people.addedBy': 'Added by {name}',
  'people.failedItem': '“{name}” ({reason})',
  'people.failedSeparator': '; ',
  'people.notShared': 'Not shared: {items}.',
  'people.invitedOne': 'Invitation sent to {email}.',
  'people.invitedAll':
    '{count, plural, one {Invitation sent to {email} for # item.} other {Invitation sent to {email} for # items.}}',
  'people.invitedSome':
    '{count, plural, one {Invitation sent to {email} for {done} of # item.} other {Invitation sent to {email} for {done} of # items.}}',
  'people.sharedOne': 'Shared with {email} as {role, select, editor {Editor} other {Viewer}}.',
  'people.sharedAll':
    '{count, plural, one {Shared # item with {email} as {role, select, editor {Editor} other {Viewer}}.} other {Shared # items with {email} as {role, select, editor {Editor} other {Viewer}}.}}',
  'people.sharedSome':
    '{count, plural, one {Shared {done} of # item with {email} as {role, select, editor {Editor} other {Viewer}}.} other {Shared {done} of # items with {email} as {role, select, editor {Editor} other {Viewer}}.}}',
  'people.partly': '{said} Not shared: {items}.',
  'people.transferred': '“{name}” now belongs to {who}. You are an Editor of it.',
  'people.nowOwner': '{who} is now the owner.',
  'people.left': 'You left “{name}”.',
  'people.noAccess': 'You no longer have access.',
  'people.title': 'People',
  'people.email': 'Email address',
  'people.roleLabel': 'Role',
  'people.viewerHint': 'Viewer (can see and download)',
  'people.editorHint': 'Editor (can also add, rename, move, delete)',
  'people.shareMany': '{count, plural, one {Share # item} other {Share # items}}',
  'people.list': 'People with access',
  'people.you': '{name} (you)',
  'people.roleOf': 'Role of {email}',
  'people.nowRole':
    '{role, select, editor {{who} is now an Editor.} other {{who} is now a Viewer.}}',
  'people.makeOwner': 'Make owner',
  'people.makeOwnerOf': 'Make owner: {email}',
  'people.remove': 'Remove',
  'people.removeOf': 'Remove {email}',
  'people.removed': 'Removed {who}.',
  'people.leave': 'Leave',
  'people.makeOwnerConfirm':
    'Make {who} the owner of “{name}”? It moves to their My files and uses their storage. You stay an Editor: you can still open and change it, but only they can share it, change who has access, or delete it forever.',
  'people.leaveConfirm':
    'Leave “{name}”? You will no longer see it, unless its owner shares it with you again.',
  // UploadTray and its summary (tray-summary.ts; the summary's parts are joined by " · ")
  'upload.queued': 'Queued',
  'upload.uploading': 'Uploading',
  'upload.incompleteReady': 'Incomplete: ready to resume',
  'upload.incomplete': 'Incomplete',
  'upload.pausedOffline': 'Paused (offline)',
  'upload.paused': 'Paused',
  'upload.retryingIn': 'Retrying in {time}',
  'upload.retrying': 'Retrying…',
  'upload.failed': 'Failed: {reason}',
  'upload.done': 'Done',
  'upload.row': '{name}: {state}',
  'upload.progressOf': '{name} progress',
  'upload.percent': '{n}%',
  'upload.sent': '{sent} of {size}',
  'upload.left': '{time} left',
  'upload.starting': 'starting…',
  'upload.pauseOne': 'Pause {name}',
  'upload.pause': 'Pause',
  'upload.resumeOne': 'Resume {name}',
  'upload.resumeHint': 'Resumes from where it stopped: pick the same file again if asked',
  'upload.resume': 'Resume',
  'upload.retryOne': 'Retry {name}',
  'upload.retry': 'Retry',
  'upload.cancelOne': 'Cancel {name}',
  'upload.notSameFile':
    'To resume “{name}”, pick that same file ({size}); “{other}” is another one.',
  'upload.tray': 'Uploads',
  'upload.pauseAll': 'Pause all',
  'upload.resumeAll': 'Resume all',
  'upload.cancelAll': 'Cancel all',
  'upload.clearDone': 'Clear done',
  'upload.dismiss': 'Dismiss',
  'upload.chooseResume': 'Choose the file to resume',
  'tray.uploading':
    '{count, plural, one {Uploading # file · {pct}%} other {Uploading # files · {pct}%}}',
  'tray.paused': '{count, plural, other {# paused}}',
  'tray.incomplete': '{count, plural, other {# incomplete}}',
  'tray.failed': '{count, plural, one {# upload failed} other {# uploads failed}}',
  'tray.notUploaded': '{count, plural, one {# file not uploaded} other {# files not uploaded}}',
  'tray.complete': 'Uploads complete',
  // add-files
  'addFiles.tooLarge': '{name} is too large: the limit is {limit} per file.',
  'addFiles.noRoom': 'Not enough storage for {name}: you are using {used} of {quota}.',
  'addFiles.noFolders': 'The folders could not be created: {reason}',
  // media.tsx and previews/
  'preview.loading': 'Loading preview…',
  'preview.cut': 'Only the first {n} KiB are shown.',
  'preview.code': 'Code of {name}',
  'preview.table': 'Table of {name}',
  'preview.rows': '{count, plural, one {{n} row.} other {{n} rows.}}',
  'preview.rowsMore':
    '{count, plural, one {Showing {shown} of more than {n} row.} other {Showing {shown} of more than {n} rows.}}',
  'preview.rowsLeft':
    '{count, plural, one {Showing {shown} of {n} row ({left} not shown).} other {Showing {shown} of {n} rows ({left} not shown).}}',
  'preview.rowsLeftMore':
    '{count, plural, one {Showing {shown} of more than {n} row ({left}+ not shown).} other {Showing {shown} of more than {n} rows ({left}+ not shown).}}',
  'preview.svgTooLarge': 'Too large to preview here.',
  'preview.svgUnreadable': 'This SVG picture could not be read.',
  'preview.pdfFailed': 'This PDF could not be shown.',
  'preview.pageFailed': 'Page {page} could not be shown.',
  'preview.pages': 'Pages of {name}',
  'preview.page': 'Page {page} of {total} of {name}',
  'preview.showAll': '{count, plural, one {Show all {n} page} other {Show all {n} pages}}',
  'preview.showFirst':
    '{count, plural, one {Show the first {limit} of {n} page} other {Show the first {limit} of {n} pages}}',
  'preview.drawing': 'Drawing page {page}…',
  // use-access-events
  'access.lost': 'You no longer have access to “{name}”.',
  // use-entry-actions: where restored items went, one sentence per case.
  'restored.plain': 'Restored {what}.',
  'restored.renamed': 'Restored {what} as “{name}” (the name was taken).',
  'restored.into': 'Restored {what} to “{folder}”.',
  'restored.intoRenamed': 'Restored {what} to “{folder}” as “{name}” (the name was taken).',
  'restored.mine': 'Restored {what} to My files (its folder is no longer there).',
  'restored.mineRenamed':
    'Restored {what} to My files (its folder is no longer there) as “{name}” (the name was taken).',
  'restored.theirs':
    'Restored {what} to its owner’s My files (its folder is no longer there or no longer shared with you).',
  'restored.theirsRenamed':
    'Restored {what} to its owner’s My files (its folder is no longer there or no longer shared with you) as “{name}” (the name was taken).',
  // zip.ts: said by the download service worker for a download URL it no longer knows.
  'zip.expired': 'This download has expired. Start it again.',
} as const;
