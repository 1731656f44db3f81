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
    '{size} · {how, select, restored {استعاده} other {رفعه}} {by, select, me {أنت} someone {شخص ما} other {{name}}} · {when}',
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
};
