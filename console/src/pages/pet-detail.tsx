import { useRef, useState } from 'preact/hooks';
import { allowedNextStatuses } from '../../../src/pets/pet-status.js';
import {
  api,
  ApiError,
  isEditConflict,
  isOwnImage,
  messageOf,
  ok,
  okVersioned,
  type Pet,
  uploadPetImage,
} from '../api';
import { Link, navigate } from '../router';
import {
  ConfirmDialog,
  ErrorAlert,
  Field,
  formatDate,
  formErrors,
  NotLoaded,
  PageHeading,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';
import { PetAdoptions } from './pet-adoptions';
import { PetHistory } from './pet-history';
import { canEditPets, useSession } from '../session';
import { StatusBadge } from './status-badge';

export function PetDetailPage({ id }: { id: number }) {
  const pet = useLoad(
    () => okVersioned(api.GET('/v1/pets/{petId}', { params: { path: { petId: id } } })),
    [id],
  );
  const images = useLoad(
    () => ok(api.GET('/v1/pets/{petId}/images', { params: { path: { petId: id } } })),
    [id],
  );
  const [announcement, announce] = useAnnouncement();
  const [deleting, setDeleting] = useState(false);
  const action = useSubmit();
  const statusHeading = useRef<HTMLHeadingElement>(null);
  const who = useSession();
  const editable = canEditPets(who);

  if (!pet.data) {
    return (
      <NotLoaded
        load={pet}
        title="Pet"
        missing="Pet not found"
        back={
          <p>
            <Link href="/pets">Back to the pets</Link>
          </p>
        }
      />
    );
  }
  const { data: current, etag } = pet.data;
  // Writes apply only to the version shown (If-Match): a change someone else made since is
  // never overwritten unseen.
  const shown = { path: { petId: id }, header: { 'If-Match': etag } };
  const reloadWhenOutdated = (error: unknown) => {
    const outdated =
      isEditConflict(error) ||
      (error instanceof ApiError && error.code === 'INVALID_STATUS_TRANSITION');
    if (outdated) pet.reload();
  };

  const move = (status: Pet['status']) =>
    void action.run(async () => {
      try {
        const moved = await okVersioned(
          api.PUT('/v1/pets/{petId}', { params: shown, body: { status } }),
        );
        pet.set(() => moved);
        announce(`Status changed to ${status}.`);
        // The pressed button is gone (the moves changed): keep the user in this section.
        statusHeading.current?.focus();
      } catch (error) {
        // Someone else changed it first: show it as it is now, and so the moves it allows.
        reloadWhenOutdated(error);
        throw error;
      }
    });
  const remove = () => {
    setDeleting(false);
    void action.run(async () => {
      try {
        await ok(api.DELETE('/v1/pets/{petId}', { params: shown }));
      } catch (error) {
        reloadWhenOutdated(error);
        throw error;
      }
      navigate('/pets', { replace: true });
    });
  };
  // While an adoption is open, the pet's status moves only through it (and it is not deleted).
  const held = current.adoption !== undefined;
  const moves = held
    ? []
    : allowedNextStatuses(current.status).filter((status) => status !== current.status);

  return (
    <>
      <PageHeading>{current.name}</PageHeading>
      <p>
        <Link href="/pets">Back to the pets</Link>
      </p>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={action.error} />

      <section aria-labelledby="status-title" class="panel">
        <h2 id="status-title" ref={statusHeading} tabIndex={-1}>
          Status
        </h2>
        <p>
          Now <StatusBadge status={current.status} />
        </p>
        {editable && held && (
          <p class="hint">Held for an adoption: its status changes through the adoption.</p>
        )}
        {/* Only with buttons: an empty row would leave a gap in the panel (customers, a held pet). */}
        {editable && moves.length > 0 && (
          <div class="actions">
            {moves.map((status) => (
              <button
                key={status}
                type="button"
                disabled={action.busy}
                onClick={() => move(status)}
              >
                Mark as {status}
              </button>
            ))}
          </div>
        )}
      </section>

      {who && <PetAdoptions pet={current} who={who} onPetChanged={pet.reload} />}

      <section aria-labelledby="details-title">
        <h2 id="details-title">Details</h2>
        <dl class="details">
          <dt>Category</dt>
          <dd>{current.category.name}</dd>
          <dt>Age</dt>
          <dd>{current.age ?? '—'}</dd>
          <dt>Breed</dt>
          <dd>{current.breed ?? '—'}</dd>
          <dt>Description</dt>
          <dd class="prose">{current.description ?? '—'}</dd>
          <dt>Tags</dt>
          <dd>{current.tags.length > 0 ? current.tags.map((tag) => tag.name).join(', ') : '—'}</dd>
          <dt>Created</dt>
          <dd>{formatDate(current.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{formatDate(current.updatedAt)}</dd>
        </dl>
        {editable && (
          <div class="actions">
            <Link class="button" href={`/pets/${id}/edit`}>
              Edit
            </Link>
            {!held && (
              <button type="button" class="button-danger" onClick={() => setDeleting(true)}>
                Delete
              </button>
            )}
          </div>
        )}
      </section>

      <section aria-labelledby="photos-title">
        <h2 id="photos-title">Photos</h2>
        <ErrorAlert error={images.error} />
        {images.data && images.data.images.length === 0 && <p>No photos uploaded yet.</p>}
        <ul class="photo-grid">
          {images.data?.images.map((image, index) => (
            <li key={image.id}>
              <a href={image.url}>
                <img
                  src={image.thumbnailUrl}
                  alt={image.description ?? `Photo ${index + 1} of ${current.name}`}
                  width={160}
                  height={160}
                />
              </a>
            </li>
          ))}
        </ul>
        <OtherPhotoLinks pet={current} />
        {editable && (
          <UploadForm
            petId={id}
            onUploaded={() => {
              images.reload();
              pet.reload();
            }}
          />
        )}
      </section>

      <PetHistory petId={id} version={etag} />

      {deleting && (
        <ConfirmDialog
          title={`Delete ${current.name}?`}
          confirmLabel="Delete pet"
          onConfirm={remove}
          onCancel={() => setDeleting(false)}
        >
          <p>The pet and its photos are removed for good.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Photo URLs pointing elsewhere are listed, not shown: the console loads nothing from outside. */
function OtherPhotoLinks({ pet }: { pet: Pet }) {
  const external = pet.photoUrls.filter((url) => !isOwnImage(url));
  if (external.length === 0) return null;
  return (
    <>
      <h3>Photo links</h3>
      <ul>
        {external.map((url) => (
          <li key={url}>
            <a href={url} rel="noreferrer noopener" target="_blank">
              {url}
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

const FILE_ERRORS: ApiError['code'][] = [
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INVALID_IMAGE',
];

function UploadForm({ petId, onUploaded }: { petId: number; onUploaded: () => void }) {
  const form = useRef<HTMLFormElement>(null);
  const [progress, setProgress] = useState<number>();
  // Said next to the form, where the user's eyes (and the screen magnifier) are.
  const [confirmation, confirm] = useAnnouncement();
  const { busy, error, run } = useSubmit();
  // Refusals of the file itself (type, size, content) belong next to the file field.
  const aboutFile = error instanceof ApiError && FILE_ERRORS.includes(error.code);
  const { fields, general } = formErrors(aboutFile ? undefined : error, ['image', 'description']);
  const fileError = aboutFile ? messageOf(error) : fields.image;

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(form.current!);
    if (!(data.get('description') as string)) data.delete('description');
    const file = data.get('image');
    if (file instanceof File && file.size === 0 && !file.name) data.delete('image');
    confirm('');
    void run(async () => {
      setProgress(0);
      try {
        await uploadPetImage(petId, data, setProgress);
        form.current!.reset();
        confirm('Photo uploaded.');
        onUploaded();
      } finally {
        setProgress(undefined);
      }
    });
  };

  return (
    <form ref={form} class="panel" onSubmit={onSubmit} noValidate aria-labelledby="upload-title">
      <h3 id="upload-title">Upload a photo</h3>
      <ErrorAlert error={general} />
      <Field name="image" label="Image file" hint="JPEG, PNG or GIF, up to 5 MB." error={fileError}>
        {(control) => <input {...control} type="file" accept="image/jpeg,image/png,image/gif" />}
      </Field>
      <Field name="description" label="Description (optional)" error={fields.description}>
        {(control) => <input {...control} />}
      </Field>
      {progress !== undefined && (
        <div class="progress">
          <label for="upload-progress">Upload progress</label>
          <progress id="upload-progress" max={100} value={Math.round(progress * 100)}>
            {Math.round(progress * 100)}%
          </progress>
        </div>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Uploading…' : 'Upload photo'}
      </button>
      <StatusMessage>{confirmation}</StatusMessage>
    </form>
  );
}
