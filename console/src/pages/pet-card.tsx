import { useEffect, useState } from 'preact/hooks';
import { api, isOwnImage, ok, type Pet } from '../api';
import { Link } from '../router';
import { excerptOf, matchOf, splitByMatch, type WordMatch } from '../search-match';
import { StatusBadge } from './status-badge';

/** "2 years old"; ages are whole years, so 0 is under a year. */
function ageText(age: number): string {
  if (age === 0) return 'under a year old';
  return age === 1 ? '1 year old' : `${age} years old`;
}

/**
 * Text with the words a search matched in `<mark>`. Preact writes each part as a text node:
 * the pet's text is never parsed as HTML.
 */
function Marked({ text, match }: { text: string; match: WordMatch }) {
  return (
    <>
      {splitByMatch(text, match).map((part, n) =>
        part.marked ? <mark key={n}>{part.text}</mark> : part.text,
      )}
    </>
  );
}

/**
 * A pet in the list: its photo, name, category, status, breed, age and tags, and for a
 * search the words it matched marked, with the part of the description that matched.
 */
export function PetCard({ pet, q }: { pet: Pet; q: string }) {
  const match = matchOf(q, {
    name: pet.name,
    breed: pet.breed,
    tags: pet.tags.map((tag) => tag.name),
    category: pet.category.name,
    description: pet.description,
  });
  const excerpt = pet.description && excerptOf(pet.description, match);
  return (
    <li class="pet-card">
      <PetThumbnail pet={pet} />
      <div class="pet-card-text">
        <h2>
          <Link href={`/pets/${pet.id}`}>
            <Marked text={pet.name} match={match} />
          </Link>
        </h2>
        <p>
          <Marked text={pet.category.name} match={match} /> · <StatusBadge status={pet.status} />
        </p>
        {(pet.breed !== undefined || pet.age !== undefined) && (
          <p>
            {pet.breed !== undefined && <Marked text={pet.breed} match={match} />}
            {pet.breed !== undefined && pet.age !== undefined && ' · '}
            {pet.age !== undefined && ageText(pet.age)}
          </p>
        )}
        {pet.tags.length > 0 && (
          <ul class="tags" aria-label="Tags">
            {pet.tags.map((tag) => (
              <li key={tag.name}>
                <Marked text={tag.name} match={match} />
              </li>
            ))}
          </ul>
        )}
        {excerpt && (
          <p class="match-excerpt">
            <Marked text={excerpt} match={match} />
          </p>
        )}
      </div>
    </li>
  );
}

/** The thumbnail of the pet's first uploaded image, asked for only when it has one. */
function PetThumbnail({ pet }: { pet: Pet }) {
  const [src, setSrc] = useState<string>();
  const hasUpload = pet.photoUrls.some(isOwnImage);
  useEffect(() => {
    if (!hasUpload) return;
    let current = true;
    ok(api.GET('/v1/pets/{petId}/images', { params: { path: { petId: pet.id } } })).then(
      ({ images }) => current && setSrc(images[0]?.thumbnailUrl),
      () => current && setSrc(undefined),
    );
    return () => {
      current = false;
    };
  }, [pet.id, hasUpload]);
  if (!src) return <PhotoPlaceholder />;
  return <img class="thumb" src={src} alt="" width={96} height={96} loading="lazy" />;
}

/** A paw print where a pet has no photo: drawn inline, since the console loads nothing else. */
function PhotoPlaceholder() {
  return (
    <svg class="thumb thumb-empty" viewBox="0 0 96 96" width={96} height={96} aria-hidden="true">
      <g fill="currentColor">
        <ellipse cx="48" cy="60" rx="17" ry="14" />
        <ellipse cx="27" cy="41" rx="7" ry="9" />
        <ellipse cx="40" cy="29" rx="7" ry="9" />
        <ellipse cx="56" cy="29" rx="7" ry="9" />
        <ellipse cx="69" cy="41" rx="7" ry="9" />
      </g>
    </svg>
  );
}
