// Style sheets are bundled by Vite; importing one has only that side effect.
declare module '*.css';
