import type { enParts } from './en-parts';

// Arabic messages of the components and lib helpers (src/components, src/lib); spread into `ar.ts`.
export const arParts: Record<keyof typeof enParts, string> = {
  'activity.title': 'نشاط «{name}»',
  'activity.none': 'لا نشاط في آخر 90 يومًا.',
  'activity.list': 'النشاط، الأحدث أولًا',
  'activity.showMore': 'عرض المزيد',
  'activity.justNow': 'الآن',
  'activity.someone': 'شخص ما',
  'activity.anItem': 'عنصر',
  'activity.place.folder': '«{name}»',
  'activity.place.mine': 'ملفاتي',
  'activity.place.owners': 'ملفات المالك',
  'activity.place.hidden': 'مجلد لا يمكنك رؤيته',
  'activity.created':
    '{by, select, me {أنشأتَ المجلد «{item}»} other {أنشأ {actor} المجلد «{item}»}}',
  'activity.uploaded': '{by, select, me {رفعتَ «{item}»} other {رفع {actor} «{item}»}}',
  'activity.renamed':
    '{by, select, me {أعدتَ تسمية «{from}» إلى «{to}»} other {أعاد {actor} تسمية «{from}» إلى «{to}»}}',
  'activity.moved':
    '{by, select, me {نقلتَ «{item}» من {from} إلى {to}} other {نقل {actor} «{item}» من {from} إلى {to}}}',
  'activity.trashed':
    '{by, select, me {نقلتَ «{item}» إلى سلة المهملات} other {نقل {actor} «{item}» إلى سلة المهملات}}',
  'activity.restored': '{by, select, me {استعدتَ «{item}»} other {استعاد {actor} «{item}»}}',
  'activity.versionUploaded':
    '{by, select, me {رفعتَ إصدارًا جديدًا من «{item}»} other {رفع {actor} إصدارًا جديدًا من «{item}»}}',
  'activity.versionRestored':
    '{by, select, me {استعدتَ إصدارًا من «{item}»} other {استعاد {actor} إصدارًا من «{item}»}}',
  'activity.versionDeleted':
    '{by, select, me {حذفتَ إصدارًا أقدم من «{item}»} other {حذف {actor} إصدارًا أقدم من «{item}»}}',
  'activity.shared':
    '{by, select, me {شاركتَ} other {شارك {actor}}} «{item}» {target, select, me {معك} other {مع {email}}} بصفة {role, select, editor {محرر} other {عارض}}',
  'activity.invited':
    '{by, select, me {دعوتَ {target, select, me {نفسك} other {{email}}}} other {{target, select, me {دعاك {actor}} other {دعا {actor} {email}}}}} إلى «{item}» بصفة {role, select, editor {محرر} other {عارض}}',
  'activity.roleChanged':
    '{by, select, me {جعلتَ {target, select, me {نفسك} other {{email}}}} other {{target, select, me {جعلك {actor}} other {جعل {actor} {email}}}}} {role, select, editor {محررًا} other {عارضًا}} في «{item}»',
  'activity.left': '{by, select, me {غادرتَ «{item}»} other {غادر {actor} «{item}»}}',
  'activity.removed':
    '{by, select, me {أزلتَ} other {أزال {actor}}} صلاحية {target, select, me {وصولك} other {وصول {email}}} إلى «{item}»',
  'versions.title': 'إصدارات «{name}»',
  'versions.list': 'الإصدارات، الأحدث أولًا',
  'versions.version': 'الإصدار {n}',
  'versions.current': 'الإصدار {n} (الحالي)',
  'versions.meta':
    '{size} · {how, select, restored {{by, select, me {استعدتَه} someone {استعاده شخص ما} other {استعاده {name}}}} other {{by, select, me {رفعتَه} someone {رفعه شخص ما} other {رفعه {name}}}}} · {when}',
  'versions.previewOne': 'معاينة الإصدار {n}',
  'versions.downloadOne': 'تنزيل الإصدار {n}',
  'versions.restoreOne': 'استعادة الإصدار {n}',
  'versions.deleteOne': 'حذف الإصدار {n}',
  'versions.preview': 'معاينة',
  'versions.download': 'تنزيل',
  'versions.restore': 'استعادة',
  'versions.delete': 'حذف',
  'versions.restored': 'استُعيد إصدار من «{name}».',
  'versions.deleted': 'حُذف الإصدار.',
  'presence.alsoHere': 'هنا أيضًا: {names}',
  'cmd.open': 'فتح',
  'cmd.preview': 'معاينة',
  'cmd.download': 'تنزيل',
  'cmd.share': 'مشاركة',
  'cmd.activity': 'النشاط',
  'cmd.versions': 'الإصدارات',
  'cmd.rename': 'إعادة تسمية',
  'cmd.move': 'نقل',
  'cmd.star': 'إضافة نجمة',
  'cmd.unstar': 'إزالة النجمة',
  'cmd.trash': 'نقل إلى سلة المهملات',
  'cmd.restore': 'استعادة',
  'cmd.deleteForever': 'حذف نهائي',
  'browser.zipName':
    '{count, plural, zero {تنزيل Drive (لا عناصر).zip} one {تنزيل Drive (عنصر واحد).zip} two {تنزيل Drive (عنصران).zip} few {تنزيل Drive (# عناصر).zip} many {تنزيل Drive (# عنصرًا).zip} other {تنزيل Drive (# عنصر).zip}}',
  'browser.selectionActions': 'إجراءات التحديد',
  'browser.selected':
    '{count, plural, zero {لا عناصر محددة} one {عنصر واحد محدد} two {عنصران محددان} few {# عناصر محددة} many {# عنصرًا محددًا} other {# عنصر محدد}}',
  'browser.clearSelection': 'إلغاء التحديد',
  'browser.renameFile': 'إعادة تسمية الملف',
  'browser.renameFolder': 'إعادة تسمية المجلد',
  'browser.newName': 'الاسم الجديد',
  'browser.deleteFileConfirm': 'هل تريد حذف «{name}» نهائيًا؟ لا يمكن التراجع عن ذلك.',
  'browser.deleteFolderConfirm': 'هل تريد حذف «{name}» وكل ما فيه نهائيًا؟ لا يمكن التراجع عن ذلك.',
  'browser.deleteConfirm':
    'هل تريد حذف {count, plural, zero {لا عناصر} one {عنصر واحد} two {عنصرين} few {# عناصر} many {# عنصرًا} other {# عنصر}} نهائيًا (مع كل ما في المجلدات)؟ لا يمكن التراجع عن ذلك.',
  'browser.theFolder': 'المجلد',
  'grid.uploading': '{size} · جارٍ الرفع',
  'move.titleOne': 'نقل «{name}»',
  'move.title':
    '{count, plural, zero {نقل لا عناصر} one {نقل عنصر واحد} two {نقل عنصرين} few {نقل # عناصر} many {نقل # عنصرًا} other {نقل # عنصر}}',
  'move.destination': 'الوجهة',
  'preview.type': '{type} ({mime})',
  'replace.titleOne': '«{name}» موجود بالفعل',
  'replace.title':
    '{count, plural, zero {لا ملفات موجودة بالفعل} one {ملف واحد موجود بالفعل} two {ملفان موجودان بالفعل} few {# ملفات موجودة بالفعل} many {# ملفًا موجودًا بالفعل} other {# ملف موجود بالفعل}}',
  'replace.bodyOne':
    'يوجد ملف بهذا الاسم في هذا المجلد بالفعل. «استبدال» يحتفظ بالمحتوى الحالي إصدارًا أقدم، و«الاحتفاظ بالاثنين» يضيف نسخة برقم بعد الاسم.',
  'replace.body':
    'توجد ملفات بهذه الأسماء في هذا المجلد بالفعل: {names}. «استبدال» يحتفظ بالمحتوى الحالي إصدارًا أقدم، و«الاحتفاظ بالاثنين» يضيف نُسخًا برقم بعد الاسم.',
  'replace.keep': 'الاحتفاظ بالاثنين',
  'replace.replace': 'استبدال',
  'people.role.owner': 'المالك',
  'people.role.editor': 'محرر',
  'people.role.viewer': 'عارض',
  'people.invitationSent': 'أُرسلت الدعوة',
  'people.inheritedFrom': 'موروثة من «{name}»',
  'people.inheritedAbove': 'موروثة من مجلد أعلى',
  'people.addedBy': 'أضافه {name}',
  'people.failedItem': '«{name}» ({reason})',
  'people.failedSeparator': '؛ ',
  'people.notShared': 'لم تتم المشاركة: {items}.',
  'people.invitedOne': 'أُرسلت دعوة إلى {email}.',
  'people.invitedAll':
    'أُرسلت دعوة إلى {email} بشأن {count, plural, zero {لا عناصر} one {عنصر واحد} two {عنصرين} few {# عناصر} many {# عنصرًا} other {# عنصر}}.',
  'people.invitedSome':
    'أُرسلت دعوة إلى {email} بشأن {done} من {count, plural, zero {لا عناصر} one {عنصر واحد} two {عنصرين} few {# عناصر} many {# عنصرًا} other {# عنصر}}.',
  'people.sharedOne': 'تمت المشاركة مع {email} بصفة {role, select, editor {محرر} other {عارض}}.',
  'people.sharedAll':
    'تمت مشاركة {count, plural, zero {لا عناصر} one {عنصر واحد} two {عنصرين} few {# عناصر} many {# عنصرًا} other {# عنصر}} مع {email} بصفة {role, select, editor {محرر} other {عارض}}.',
  'people.sharedSome':
    'تمت مشاركة {done} من {count, plural, zero {لا عناصر} one {عنصر واحد} two {عنصرين} few {# عناصر} many {# عنصرًا} other {# عنصر}} مع {email} بصفة {role, select, editor {محرر} other {عارض}}.',
  'people.partly': '{said} لم تتم المشاركة: {items}.',
  'people.transferred': 'أصبح «{name}» ملكًا لـ{who}. أنت محرر له.',
  'people.nowOwner': 'أصبح {who} المالك الآن.',
  'people.left': 'غادرتَ «{name}».',
  'people.noAccess': 'لم تعد لديك صلاحية الوصول.',
  'people.title': 'الأشخاص',
  'people.email': 'عنوان البريد الإلكتروني',
  'people.roleLabel': 'الدور',
  'people.viewerHint': 'عارض (يمكنه العرض والتنزيل)',
  'people.editorHint': 'محرر (يمكنه أيضًا الإضافة وإعادة التسمية والنقل والحذف)',
  'people.shareMany':
    '{count, plural, zero {مشاركة لا عناصر} one {مشاركة عنصر واحد} two {مشاركة عنصرين} few {مشاركة # عناصر} many {مشاركة # عنصرًا} other {مشاركة # عنصر}}',
  'people.list': 'الأشخاص الذين لديهم صلاحية الوصول',
  'people.you': '{name} (أنت)',
  'people.roleOf': 'دور {email}',
  'people.nowRole':
    '{role, select, editor {أصبح {who} محررًا الآن.} other {أصبح {who} عارضًا الآن.}}',
  'people.makeOwner': 'نقل الملكية',
  'people.makeOwnerOf': 'نقل الملكية إلى: {email}',
  'people.remove': 'إزالة',
  'people.removeOf': 'إزالة {email}',
  'people.removed': 'أُزيل {who}.',
  'people.leave': 'مغادرة',
  'people.makeOwnerConfirm':
    'هل تريد جعل {who} مالك «{name}»؟ سينتقل إلى «ملفاتي» لديه ويستخدم مساحة تخزينه. ستبقى محررًا: يمكنك فتحه وتغييره، لكن هو وحده من يستطيع مشاركته وتغيير من لديه صلاحية الوصول إليه وحذفه نهائيًا.',
  'people.leaveConfirm': 'هل تريد مغادرة «{name}»؟ لن تراه بعد ذلك، ما لم يشاركه مالكه معك مجددًا.',
  'upload.queued': 'في الانتظار',
  'upload.uploading': 'جارٍ الرفع',
  'upload.incompleteReady': 'غير مكتمل: جاهز للاستئناف',
  'upload.incomplete': 'غير مكتمل',
  'upload.pausedOffline': 'متوقف مؤقتًا (دون اتصال)',
  'upload.paused': 'متوقف مؤقتًا',
  'upload.retryingIn': 'إعادة المحاولة بعد {time}',
  'upload.retrying': 'جارٍ إعادة المحاولة…',
  'upload.failed': 'فشل: {reason}',
  'upload.done': 'تم',
  'upload.row': '{name}: {state}',
  'upload.progressOf': 'تقدّم {name}',
  'upload.percent': '{n}٪',
  'upload.sent': '{sent} من {size}',
  'upload.left': 'يتبقى {time}',
  'upload.starting': 'جارٍ البدء…',
  'upload.pauseOne': 'إيقاف {name} مؤقتًا',
  'upload.pause': 'إيقاف مؤقت',
  'upload.resumeOne': 'استئناف {name}',
  'upload.resumeHint': 'يُستأنف من حيث توقف: اختر الملف نفسه مرة أخرى إن طُلب منك ذلك',
  'upload.resume': 'استئناف',
  'upload.retryOne': 'إعادة محاولة {name}',
  'upload.retry': 'إعادة المحاولة',
  'upload.cancelOne': 'إلغاء {name}',
  'upload.notSameFile': 'لاستئناف «{name}»، اختر الملف نفسه ({size})؛ «{other}» ملف آخر.',
  'upload.tray': 'عمليات الرفع',
  'upload.pauseAll': 'إيقاف الكل مؤقتًا',
  'upload.resumeAll': 'استئناف الكل',
  'upload.cancelAll': 'إلغاء الكل',
  'upload.clearDone': 'مسح المكتملة',
  'upload.dismiss': 'إخفاء',
  'upload.chooseResume': 'اختر الملف لاستئناف رفعه',
  'tray.uploading':
    '{count, plural, zero {لا رفع · {pct}٪} one {جارٍ رفع ملف واحد · {pct}٪} two {جارٍ رفع ملفين · {pct}٪} few {جارٍ رفع # ملفات · {pct}٪} many {جارٍ رفع # ملفًا · {pct}٪} other {جارٍ رفع # ملف · {pct}٪}}',
  'tray.paused':
    '{count, plural, zero {لا عمليات متوقفة} one {عملية واحدة متوقفة مؤقتًا} two {عمليتان متوقفتان مؤقتًا} few {# عمليات متوقفة مؤقتًا} many {# عملية متوقفة مؤقتًا} other {# عملية متوقفة مؤقتًا}}',
  'tray.incomplete':
    '{count, plural, zero {لا عمليات غير مكتملة} one {عملية واحدة غير مكتملة} two {عمليتان غير مكتملتين} few {# عمليات غير مكتملة} many {# عملية غير مكتملة} other {# عملية غير مكتملة}}',
  'tray.failed':
    '{count, plural, zero {لم تفشل أي عملية رفع} one {فشلت عملية رفع واحدة} two {فشلت عمليتا رفع} few {فشلت # عمليات رفع} many {فشلت # عملية رفع} other {فشلت # عملية رفع}}',
  'tray.notUploaded':
    '{count, plural, zero {لم يُرفع أي ملف} one {لم يُرفع ملف واحد} two {لم يُرفع ملفان} few {لم تُرفع # ملفات} many {لم يُرفع # ملفًا} other {لم يُرفع # ملف}}',
  'tray.complete': 'اكتملت عمليات الرفع',
  'addFiles.tooLarge': '«{name}» كبير جدًا: الحد الأقصى {limit} للملف الواحد.',
  'addFiles.noRoom': 'لا تكفي المساحة لـ«{name}»: أنت تستخدم {used} من {quota}.',
  'addFiles.noFolders': 'تعذّر إنشاء المجلدات: {reason}',
  'preview.loading': 'جارٍ تحميل المعاينة…',
  'preview.cut': 'تُعرض أول {n} كيلوبايت فقط.',
  'preview.code': 'شيفرة {name}',
  'preview.table': 'جدول {name}',
  'preview.rows':
    '{count, plural, zero {لا صفوف.} one {صف واحد.} two {صفان.} few {{n} صفوف.} many {{n} صفًا.} other {{n} صف.}}',
  'preview.rowsMore':
    '{count, plural, zero {عرض {shown} من أكثر من {n} صف.} one {عرض {shown} من أكثر من صف واحد.} two {عرض {shown} من أكثر من صفين.} few {عرض {shown} من أكثر من {n} صفوف.} many {عرض {shown} من أكثر من {n} صفًا.} other {عرض {shown} من أكثر من {n} صف.}}',
  'preview.rowsLeft':
    '{count, plural, zero {عرض {shown} من {n} صف ({left} غير معروضة).} one {عرض {shown} من صف واحد ({left} غير معروضة).} two {عرض {shown} من صفين ({left} غير معروضة).} few {عرض {shown} من {n} صفوف ({left} غير معروضة).} many {عرض {shown} من {n} صفًا ({left} غير معروضة).} other {عرض {shown} من {n} صف ({left} غير معروضة).}}',
  'preview.rowsLeftMore':
    '{count, plural, zero {عرض {shown} من أكثر من {n} صف ({left}+ غير معروضة).} one {عرض {shown} من أكثر من صف واحد ({left}+ غير معروضة).} two {عرض {shown} من أكثر من صفين ({left}+ غير معروضة).} few {عرض {shown} من أكثر من {n} صفوف ({left}+ غير معروضة).} many {عرض {shown} من أكثر من {n} صفًا ({left}+ غير معروضة).} other {عرض {shown} من أكثر من {n} صف ({left}+ غير معروضة).}}',
  'preview.svgTooLarge': 'الملف أكبر من أن يُعاين هنا.',
  'preview.svgUnreadable': 'تعذّرت قراءة صورة SVG هذه.',
  'preview.pdfFailed': 'تعذّر عرض ملف PDF هذا.',
  'preview.pageFailed': 'تعذّر عرض الصفحة {page}.',
  'preview.pages': 'صفحات {name}',
  'preview.page': 'الصفحة {page} من {total} من {name}',
  'preview.showAll':
    '{count, plural, zero {عرض كل الصفحات} one {عرض الصفحة الوحيدة} two {عرض الصفحتين} few {عرض كل الصفحات الـ{n}} many {عرض كل الصفحات الـ{n}} other {عرض كل الصفحات الـ{n}}}',
  'preview.showFirst':
    '{count, plural, zero {عرض أول {limit} من {n} صفحة} one {عرض أول {limit} من صفحة واحدة} two {عرض أول {limit} من صفحتين} few {عرض أول {limit} من {n} صفحات} many {عرض أول {limit} من {n} صفحة} other {عرض أول {limit} من {n} صفحة}}',
  'preview.drawing': 'جارٍ رسم الصفحة {page}…',
  'access.lost': 'لم تعد لديك صلاحية الوصول إلى «{name}».',
  'restored.plain': 'استُعيد {what}.',
  'restored.renamed': 'استُعيد {what} باسم «{name}» (لأن الاسم كان مستخدمًا).',
  'restored.into': 'استُعيد {what} إلى «{folder}».',
  'restored.intoRenamed': 'استُعيد {what} إلى «{folder}» باسم «{name}» (لأن الاسم كان مستخدمًا).',
  'restored.mine': 'استُعيد {what} إلى «ملفاتي» (لم يعد مجلده موجودًا).',
  'restored.mineRenamed':
    'استُعيد {what} إلى «ملفاتي» باسم «{name}» (لم يعد مجلده موجودًا، وكان الاسم مستخدمًا).',
  'restored.theirs':
    'استُعيد {what} إلى «ملفاتي» لدى مالكه (لم يعد مجلده موجودًا أو لم يعد مشاركًا معك).',
  'restored.theirsRenamed':
    'استُعيد {what} إلى «ملفاتي» لدى مالكه باسم «{name}» (لم يعد مجلده موجودًا أو لم يعد مشاركًا معك، وكان الاسم مستخدمًا).',
  'zip.expired': 'انتهت صلاحية هذا التنزيل. ابدأه من جديد.',
};
