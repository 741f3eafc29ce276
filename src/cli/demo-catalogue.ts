import type { PetStatus } from '../pets/pet-status.js';

/**
 * The demo shop: what `npm run seed` loads. Everything here is a function of a pet's number,
 * so that every run loads the same shop, and the examples of docs/api.md and the README find
 * the same pets.
 */

export const DEMO_STAFF = { username: 'demo.staff', password: 'demo staff password' };
export const DEMO_CUSTOMER = { username: 'demo.customer', password: 'demo customer password' };
export const DEMO_PETS = 300;
/** The history, logins and deliveries are spread over this many days, ending today. */
export const DEMO_DAYS = 30;

interface DemoCategory {
  name: string;
  description: string;
  /** Its share of the pets, in pets per 10. */
  weight: number;
  breeds: string[];
  /** What a young one is called in a description ("a Labrador puppy"). */
  young: string;
  maxAge: number;
  /** The photo's background. */
  colour: string;
}

export const DEMO_CATEGORIES: DemoCategory[] = [
  {
    name: 'Dogs',
    description: 'Loyal companions',
    weight: 4,
    breeds: [
      'Labrador',
      'Golden Retriever',
      'Beagle',
      'Poodle',
      'Border Collie',
      'Dachshund',
      'Bulldog',
      'Husky',
    ],
    young: 'puppy',
    maxAge: 14,
    colour: '#c9975b',
  },
  {
    name: 'Cats',
    description: 'Independent and curious',
    weight: 3,
    breeds: ['Siamese', 'Maine Coon', 'Persian', 'Bengal', 'Ragdoll', 'British Shorthair'],
    young: 'kitten',
    maxAge: 16,
    colour: '#8a8f9c',
  },
  {
    name: 'Birds',
    description: 'Feathered friends',
    weight: 1,
    breeds: ['Budgerigar', 'Cockatiel', 'Canary', 'Lovebird'],
    young: 'chick',
    maxAge: 10,
    colour: '#6fb7d6',
  },
  {
    name: 'Rabbits',
    description: 'Soft, quiet and social',
    weight: 1,
    breeds: ['Holland Lop', 'Netherland Dwarf', 'Lionhead'],
    young: 'kit',
    maxAge: 9,
    colour: '#b7c98a',
  },
  {
    name: 'Reptiles',
    description: 'Calm and fascinating',
    weight: 1,
    breeds: ['Leopard Gecko', 'Bearded Dragon', 'Corn Snake'],
    young: 'hatchling',
    maxAge: 15,
    colour: '#7c9a6a',
  },
];

const NAMES = (
  'Bella Max Luna Charlie Lucy Cooper Daisy Milo Bailey Sadie Rocky Molly Buddy Lola Tucker ' +
  'Stella Bear Zoe Duke Coco Crème Pepper Shadow Ginger Maple Willow Biscuit Honey Oreo Rusty ' +
  'Sunny Misty Ziggy Nala Copper Jasper Olive Pippin Hazel Juniper Finn Mochi Toffee Clover ' +
  'Rosie Scout Winston Poppy Theo Ruby Otis Penny Louie Marble Sprout Pickles Waffles Nova ' +
  'Figaro Kiwi'
).split(' ');

const TEMPERS = ['Friendly', 'Gentle', 'Playful', 'Calm', 'Curious', 'Shy', 'Lively', 'Clever'];
const HABITS = [
  'loves long walks and a warm lap',
  'enjoys quiet afternoons by the window',
  'gets on well with children and other pets',
  'is house-trained and knows a few tricks',
  'needs a patient home to come out of their shell',
  'is full of energy and wants to play all day',
];
/** Tags in rotation; `vaccinated` on four pets in five. */
const TAGS = ['friendly', 'calm', 'playful', 'good-with-kids', 'house-trained', 'small', 'indoor'];

export interface DemoPet {
  name: string;
  category: string;
  breed: string;
  age: number;
  tags: string[];
  description: string;
  /** The statuses it moves through after its creation as `available`, in order. */
  moves: PetStatus[];
  /** Whether a change of its description follows (a `pet.updated` in its history). */
  edited: boolean;
  /** Whether it gets a photo. */
  photo: boolean;
}

/** A deterministic spread of a pet's number over 0..n-1, not correlated with `i % n`. */
const pick = (i: number, salt: number, n: number) => ((i * 2654435761 + salt * 40503) >>> 7) % n;

function categoryOf(i: number): DemoCategory {
  const slots = DEMO_CATEGORIES.flatMap((category) =>
    Array<DemoCategory>(category.weight).fill(category),
  );
  return slots[i % slots.length];
}

export function demoPet(i: number): DemoPet {
  const category = categoryOf(i);
  const breed = category.breeds[pick(i, 1, category.breeds.length)];
  // A third are young (0..3), so that age filters and "puppy" find several of each breed.
  const age = i % 3 === 0 ? pick(i, 2, 4) : pick(i, 3, category.maxAge + 1);
  const temper = TEMPERS[pick(i, 4, TEMPERS.length)];
  const stage = age <= 1 ? category.young : age >= category.maxAge - 4 ? 'old' : 'adult';
  const description =
    `${temper} ${breed} ${stage === 'adult' ? '' : `${stage} `}who ` +
    `${HABITS[pick(i, 5, HABITS.length)]}.`;
  const tags = [
    TAGS[i % TAGS.length],
    TAGS[pick(i, 6, TAGS.length)],
    ...(i % 5 === 4 ? [] : ['vaccinated']),
    ...(stage === 'old' ? ['senior'] : []),
  ];
  const moves: PetStatus[] =
    i % 5 === 1
      ? ['pending', 'sold']
      : i % 7 === 2
        ? ['pending']
        : i % 19 === 3
          ? ['pending', 'available']
          : [];
  return {
    name: NAMES[i % NAMES.length],
    category: category.name,
    breed,
    age,
    tags: [...new Set(tags)],
    description,
    moves,
    edited: i % 11 === 6,
    photo: i % 3 === 0,
  };
}

/** The colour of a category's photos. */
export const colourOf = (category: string) =>
  DEMO_CATEGORIES.find((c) => c.name === category)?.colour ?? '#999999';
